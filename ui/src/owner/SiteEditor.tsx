// The owner edits the site (issue 37): the picture (chosen, or taken with the phone's camera;
// made square and small in the browser by picture.ts, saved at once), the name, the About text
// and the two links (saved with Save), and the way back to the flags' values. The server decides
// (src/site/edit.rs); the form says beforehand what it would refuse, and the server's refusal
// lands on the field it names. What is saved shows on the landing page at once, in this tab too.
import { useId, useRef, useState, type SyntheticEvent } from 'react';
import { Camera, ImagePlus, RotateCcw, Save, Trash2 } from 'lucide-react';
import { useProfile, useReplaceProfile } from '../lib/ProfileContext';
import { QuestionDialog } from '../lib/QuestionDialog';
import { withSiteKey } from '../lib/siteKey';
import { ownerKeyDeps } from './api';
import { PictureError, preparePicture } from './picture';
import { removePicture, restoreDefaults, saveTexts, SiteApiError, uploadPicture } from './siteApi';
import {
  aboutCount,
  fieldsOf,
  isFieldName,
  profileOf,
  sameFields,
  validateFields,
  type FieldErrors,
  type FieldName,
  type OwnerSite,
  type SiteFields,
} from './siteForm';

type Busy = null | 'save' | 'picture' | 'defaults';

const ending = (message: string) => (/[.!?]$/.test(message) ? message : `${message}.`);

/** `initial`: the site as the owner page's first answer gave it; later answers do not reset the form. */
export function SiteEditor({ initial }: { initial: OwnerSite }) {
  const id = useId();
  const current = useProfile();
  const replaceProfile = useReplaceProfile();
  const [site, setSite] = useState<OwnerSite>(initial);
  const [fields, setFields] = useState<SiteFields>(() => fieldsOf(initial));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [status, setStatus] = useState('');
  const [pictureStatus, setPictureStatus] = useState('');
  const [busy, setBusy] = useState<Busy>(null);
  const [askingDefaults, setAskingDefaults] = useState(false);
  const chooser = useRef<HTMLInputElement>(null);
  const camera = useRef<HTMLInputElement>(null);

  /** Runs one change on the server; its answer is what the site and the form show after it. */
  async function change(kind: Exclude<Busy, null>, action: (key: string | null) => Promise<OwnerSite>, said: string, refill: boolean): Promise<boolean> {
    setBusy(kind);
    const outcome = await withSiteKey(action, ownerKeyDeps);
    setBusy(null);
    if (outcome.kind === 'done') {
      setSite(outcome.value);
      if (refill) setFields(fieldsOf(outcome.value));
      replaceProfile(profileOf(outcome.value, current?.version ?? ''));
      (kind === 'picture' ? setPictureStatus : setStatus)(said);
      return true;
    }
    const message = outcome.kind === 'cancelled' ? "Not saved: the editor needs the site's publish key." : `Not saved: ${ending(outcome.message)}`;
    const field = outcome.kind === 'failed' && outcome.error instanceof SiteApiError ? outcome.error.field : null;
    if (outcome.kind === 'failed' && isFieldName(field)) setErrors({ [field]: ending(outcome.message.replace(/^./, (c) => c.toUpperCase())) });
    (kind === 'picture' || field === 'avatar' ? setPictureStatus : setStatus)(message);
    return false;
  }

  async function pictureChosen(input: HTMLInputElement | null) {
    const file = input?.files?.[0];
    if (!input || !file || busy) return;
    input.value = '';
    setPictureStatus('Preparing the picture…');
    let picture: Blob;
    try {
      picture = await preparePicture(file, site.maxPictureBytes);
    } catch (error) {
      setPictureStatus(error instanceof PictureError ? error.message : 'This picture could not be prepared.');
      return;
    }
    await change('picture', (key) => uploadPicture(key, picture), 'Picture saved. The landing page shows it now.', false);
  }

  const dirty = !sameFields(fields, fieldsOf(site));
  const edit = (field: FieldName, value: string) => {
    setFields({ ...fields, [field]: value });
    if (errors[field]) setErrors({ ...errors, [field]: undefined });
  };
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = validateFields(fields, site.maxAboutChars);
    setErrors(found);
    const first = (Object.keys(found) as FieldName[])[0];
    if (first) {
      setStatus('Not saved: a field needs a change.');
      document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    void change('save', (key) => saveTexts(key, fields), 'Saved. The landing page shows it now.', true);
  };
  const described = (field: FieldName, hint?: string) => [hint, errors[field] ? `${id}-${field}-error` : undefined].filter(Boolean).join(' ') || undefined;
  const fieldError = (field: FieldName) =>
    errors[field] ? (
      <p id={`${id}-${field}-error`} className="error-text owner-site__error">
        {errors[field]}
      </p>
    ) : null;
  const custom = site.customTexts || site.customAvatar;

  return (
    <div className="owner-site">
      <p className="hint">
        What visitors see on the landing page. The server's settings (--owner-name, --avatar, --spotify-url, --beehive-url) are only the first values: what you
        save here takes their place at once.
      </p>
      <div className="owner-site__picture">
        <img className="owner-site__avatar" src={site.avatarUrl} alt="Profile picture" width={96} height={96} />
        <div className="owner-site__picture-actions">
          <button type="button" className="button" aria-disabled={busy !== null || undefined} onClick={() => busy === null && chooser.current?.click()}>
            <ImagePlus aria-hidden="true" size={16} />
            Choose a picture
          </button>
          <button type="button" className="button" aria-disabled={busy !== null || undefined} onClick={() => busy === null && camera.current?.click()}>
            <Camera aria-hidden="true" size={16} />
            Take a photo
          </button>
          {site.customAvatar && (
            <button
              type="button"
              className="button"
              aria-disabled={busy !== null || undefined}
              onClick={() => busy === null && void change('picture', removePicture, 'Picture removed: the landing page shows the first one again.', false)}
            >
              <Trash2 aria-hidden="true" size={16} />
              Remove picture
            </button>
          )}
          <input
            ref={chooser}
            type="file"
            accept="image/*"
            hidden
            tabIndex={-1}
            aria-label="Choose a picture"
            onChange={(e) => void pictureChosen(e.currentTarget)}
          />
          <input
            ref={camera}
            type="file"
            accept="image/*"
            capture="user"
            hidden
            tabIndex={-1}
            aria-label="Take a photo"
            onChange={(e) => void pictureChosen(e.currentTarget)}
          />
        </div>
        <p className="hint owner-site__picture-status" aria-live="polite">
          {pictureStatus || 'A square is cut from the middle of the picture and made 512 pixels wide before it is sent.'}
        </p>
      </div>
      <form className="owner-site__form" onSubmit={submit} noValidate>
        <label className="field" htmlFor={`${id}-name`}>
          Name
          <input
            id={`${id}-name`}
            className="input"
            value={fields.name}
            autoComplete="name"
            required
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={described('name')}
            onChange={(e) => edit('name', e.currentTarget.value)}
          />
        </label>
        {fieldError('name')}
        <label className="field" htmlFor={`${id}-about`}>
          About
          <textarea
            id={`${id}-about`}
            className="textarea owner-site__about"
            value={fields.about}
            rows={6}
            aria-invalid={errors.about ? true : undefined}
            aria-describedby={described('about', `${id}-about-hint`)}
            onChange={(e) => edit('about', e.currentTarget.value)}
          />
        </label>
        <p id={`${id}-about-hint`} className="hint">
          {aboutCount(fields.about, site.maxAboutChars)}. Shown in the About dialog; a blank line starts a paragraph, and addresses beginning with https://
          become links. Empty: the dialog's own sentence.
        </p>
        {fieldError('about')}
        <label className="field" htmlFor={`${id}-spotifyUrl`}>
          Spotify link
          <input
            id={`${id}-spotifyUrl`}
            className="input"
            type="url"
            inputMode="url"
            value={fields.spotifyUrl}
            placeholder="https://open.spotify.com/…"
            aria-invalid={errors.spotifyUrl ? true : undefined}
            aria-describedby={described('spotifyUrl', `${id}-links-hint`)}
            onChange={(e) => edit('spotifyUrl', e.currentTarget.value)}
          />
        </label>
        {fieldError('spotifyUrl')}
        <label className="field" htmlFor={`${id}-beehiveUrl`}>
          Beehive link
          <input
            id={`${id}-beehiveUrl`}
            className="input"
            type="url"
            inputMode="url"
            value={fields.beehiveUrl}
            placeholder="https://…"
            aria-invalid={errors.beehiveUrl ? true : undefined}
            aria-describedby={described('beehiveUrl', `${id}-links-hint`)}
            onChange={(e) => edit('beehiveUrl', e.currentTarget.value)}
          />
        </label>
        {fieldError('beehiveUrl')}
        <p id={`${id}-links-hint`} className="hint">
          The landing page shows a link only when it has an address.
        </p>
        <div className="owner-site__actions">
          <button type="submit" className="button button--primary" aria-disabled={busy !== null || undefined}>
            <Save aria-hidden="true" size={16} />
            Save
          </button>
          {custom && (
            <button type="button" className="button" aria-disabled={busy !== null || undefined} onClick={() => busy === null && setAskingDefaults(true)}>
              <RotateCcw aria-hidden="true" size={16} />
              Use the defaults
            </button>
          )}
          {dirty && <span className="unsaved-marker">Unsaved changes</span>}
        </div>
        <p className="hint owner-site__status" aria-live="polite">
          {status}
        </p>
      </form>
      {askingDefaults && (
        <QuestionDialog
          title="Use the defaults?"
          className="owner-site__defaults"
          safeAnswer="Keep my changes"
          onSafe={() => setAskingDefaults(false)}
          answers={
            <button
              type="button"
              className="button button--primary"
              onClick={() => {
                setAskingDefaults(false);
                void change('defaults', restoreDefaults, "Back to the server's settings: the landing page shows them now.", true).then(() => setErrors({}));
              }}
            >
              Use the defaults
            </button>
          }
        >
          <p>The name, the links and the picture go back to the server's settings, and the About text you wrote is removed.</p>
        </QuestionDialog>
      )}
    </div>
  );
}
