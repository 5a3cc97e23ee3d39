// Copying text: the Clipboard API where the page is a secure context, else the older selection
// copy (a home server is often reached over plain http on the LAN, where the API is missing).

export async function copyText(text: string): Promise<boolean> {
  try {
    if (window.isSecureContext && typeof navigator.clipboard === 'object') {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Denied: try the fallback.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  const focused = document.activeElement;
  area.select();
  let copied: boolean;
  try {
    // The only way to copy outside a secure context; deprecated but still supported everywhere.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  if (focused instanceof HTMLElement) focused.focus();
  return copied;
}
