import type { Theme } from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import { preloadSearchIndex } from './search-preload';
import './custom.css';

export default {
  extends: DefaultTheme,
  enhanceApp() {
    if (typeof window !== 'undefined') preloadSearchIndex();
  },
} satisfies Theme;
