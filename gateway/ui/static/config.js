// Config: placeholder until the view lands.
import { el, registerView } from '/ui/kit.js';

registerView({
  name: 'config',
  label: 'Config',
  build(section) {
    section.append(el('h2', 'Config'));
  },
});
