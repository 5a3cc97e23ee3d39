// Keyboard movement in a menu (WAI-ARIA menu button pattern): the arrows wrap, Home and End jump,
// anything else leaves the focus where it is.

/** The item index to focus after `key`, or null when the key does not move the focus. */
export function menuFocusAfter(key: string, current: number, count: number): number | null {
  if (count <= 0) return null;
  switch (key) {
    case 'ArrowDown':
      return (current + 1) % count;
    case 'ArrowUp':
      return (current - 1 + count) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}
