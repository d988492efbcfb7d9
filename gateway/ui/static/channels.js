// Channels: placeholder until the view lands.
import { el, registerView } from '/ui/kit.js';

registerView({
  name: 'channels',
  label: 'Channels',
  build(section) {
    section.append(el('h2', 'Channels'));
  },
});
