// Channels: placeholder until the view lands.
import { el, registerView } from './kit.js';

registerView({
  name: 'channels',
  label: 'Channels',
  build(section) {
    section.append(el('h2', 'Channels'));
  },
});
