// node --import ./scripts/vite-glob-register.mjs: registers scripts/vite-glob-hook.mjs (see there).
import { register } from 'node:module';

register('./vite-glob-hook.mjs', import.meta.url);
