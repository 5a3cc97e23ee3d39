// A menu button (WAI-ARIA APG): the button opens a list of actions; arrows, Home and End move
// between them, Enter or a click runs one, Escape closes and gives the focus back to the button.
import './MenuButton.css';
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { menuFocusAfter } from './menuKeys';

export interface MenuItem {
  label: string;
  icon?: ReactNode;
  onSelect: () => void;
}

interface Props {
  /** The button's accessible name (it may show only an icon and a short word). */
  label: string;
  children: ReactNode;
  items: readonly MenuItem[];
  className?: string;
}

export function MenuButton({ label, children, items, className = 'icon-button' }: Props) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  /** Which item takes the focus when the menu opens (the last one for ArrowUp). */
  const [first, setFirst] = useState(0);

  const itemAt = (index: number) => menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]')[index];

  useEffect(() => {
    if (!open) return;
    itemAt(first)?.focus();
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open, first]);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  const onMenuKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const list = Array.from(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
    const current = list.indexOf(document.activeElement as HTMLElement);
    const next = menuFocusAfter(event.key, current, list.length);
    if (next !== null) {
      event.preventDefault();
      list[next]?.focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    } else if (event.key === 'Tab') {
      close(false);
    }
  };

  return (
    <div className="menu">
      <button
        ref={button}
        type="button"
        className={className}
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? `${id}-menu` : undefined}
        onClick={() => {
          setFirst(0);
          setOpen((was) => !was);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            setFirst(event.key === 'ArrowUp' ? items.length - 1 : 0);
            setOpen(true);
          }
        }}
      >
        {children}
      </button>
      {open && (
        <ul ref={menu} id={`${id}-menu`} role="menu" aria-label={label} className="menu__list" onKeyDown={onMenuKeyDown}>
          {items.map((item) => (
            <li key={item.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                className="menu__item"
                onClick={() => {
                  close(true);
                  item.onSelect();
                }}
              >
                {item.icon}
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
