// Config: placeholder until the view lands.
import { el, registerView } from './kit.js';

registerView({
  name: 'config',
  label: 'Config',
  build(section) {
    section.append(el('h2', 'Config'));
  },
});
