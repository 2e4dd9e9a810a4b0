/*
 * The bearer token a person signed in with. Kept in sessionStorage, not localStorage: it lives as long as the tab,
 * is not shared with other tabs or left on disk after the browser closes, so a token left on a shared laptop is gone
 * with the tab. The price is one sign-in per tab.
 */
const KEY = 'ragtime.token';

export const tokenStore = {
  read: (): string | null => sessionStorage.getItem(KEY),
  write: (token: string): void => sessionStorage.setItem(KEY, token),
  clear: (): void => sessionStorage.removeItem(KEY),
};
