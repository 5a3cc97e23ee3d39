// Whether a box of fixed size holds more than it shows (its content scrolls), measured again when
// the box or its content changes size, and when `content` (what it shows) changes.
import { useEffect, useState, type RefObject } from 'react';

export function useOverflowing(box: RefObject<HTMLElement | null>, content: unknown): boolean {
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setOverflowing(element.scrollHeight > element.clientHeight + 1);
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    for (const child of element.children) observer.observe(child);
    return () => observer.disconnect();
  }, [box, content]);
  return overflowing;
}
