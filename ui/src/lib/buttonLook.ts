// The classes that make an element look like one of global.css's buttons, for ButtonLink.

/** `default` is the plain bordered button; `icon` the square one for an icon alone. */
export type ButtonLook = 'default' | 'primary' | 'quiet' | 'icon';

const LOOKS: Record<ButtonLook, string> = {
  default: 'button',
  primary: 'button button--primary',
  quiet: 'button button--quiet',
  icon: 'icon-button',
};

/** The look's classes, then any of the caller's own. */
export function buttonClass(look: ButtonLook, extra?: string): string {
  const own = extra?.trim();
  return own ? `${LOOKS[look]} ${own}` : LOOKS[look];
}
