// Sessions: placeholder until the view lands.
import { el, registerView } from '/ui/kit.js';

registerView({
  name: 'sessions',
  label: 'Sessions',
  build(section) {
    section.append(el('h2', 'Sessions'));
  },
});
