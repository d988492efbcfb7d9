// Sessions: placeholder until the view lands.
import { el, registerView } from './kit.js';

registerView({
  name: 'sessions',
  label: 'Sessions',
  build(section) {
    section.append(el('h2', 'Sessions'));
  },
});
