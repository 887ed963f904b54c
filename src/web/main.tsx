import { render } from 'preact';
import { App } from './app.tsx';
import { interceptLinks } from './router.ts';
import './styles.css';

interceptLinks();
const root = document.getElementById('app');
if (root) render(<App />, root);
