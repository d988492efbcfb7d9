// Nodes: placeholder until the view lands.
import { el, registerView } from './kit.js';

registerView({
  name: 'nodes',
  label: 'Nodes',
  build(section) {
    section.append(el('h2', 'Nodes'));
  },
});
