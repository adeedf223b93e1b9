/**
 * Props for a button whose lazy chunk should start loading when it is pointed at or focused, so that a click finds
 * it there: the System prompt editor, Share, Model settings, Export, the picker's list and the sidebar's menus. The
 * chunk's loader is passed; a failed preload is left to the click's own import.
 */
export function preloadOn(load: () => Promise<unknown>): { onPointerEnter(): void; onFocus(): void } {
  const start = (): void => void load().catch(() => undefined);
  return { onPointerEnter: start, onFocus: start };
}
