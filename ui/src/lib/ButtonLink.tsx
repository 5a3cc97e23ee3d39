// A link that looks like a button. It stays a link (it goes somewhere; a button does something):
// an <a href> that opens in a new tab on request and navigates in the app through AppLink.
import { AppLink, type AppLinkProps } from './navigation';
import { buttonClass, type ButtonLook } from './buttonLook';

export interface ButtonLinkProps extends Omit<AppLinkProps, 'activeClassName'> {
  /** Which button it looks like; the plain one unless given. */
  look?: ButtonLook;
}

export function ButtonLink({ look = 'default', className, ...rest }: ButtonLinkProps) {
  return <AppLink {...rest} className={buttonClass(look, className)} />;
}
