// Under a card's row in the editor: its pictures (small thumbnails) and sounds (a play button),
// each with the side it shows on and a button removing it from the card. Shows the editor's own
// thumbnails until media/CardMedia.tsx (the practice screen's) is shared with it.
import './media.css';
import { memo, type Dispatch } from 'react';
import { ImageOff, X } from 'lucide-react';
import type { EditorAction } from '../editor';
import { removeMediaRef } from './cardMedia';
import { PlayMedia } from './PlayMedia';
import type { MediaRef } from './ref';
import { useMediaUrl } from './useMediaUrl';

const SIDE: Record<MediaRef['field'], string> = { front: 'front', back: 'back', pronunciation: 'back', gender: 'back', example: 'back' };

function Item({ item, n, onRemove }: { item: MediaRef; n: number; onRemove: (button: HTMLButtonElement) => void }) {
  const media = useMediaUrl(item.hash);
  const url = media.status === 'ready' ? media.url : null;
  const side = SIDE[item.field];
  return (
    <li className="media-strip__item">
      {item.kind === 'image' ? (
        <span className="media-strip__thumb">
          {url ? (
            <img src={url} alt={`Picture on the ${side} of card ${n}: ${item.name}`} width={64} height={64} />
          ) : (
            <ImageOff aria-label={media.status === 'missing' ? `Picture ${item.name} is not on this device yet` : `Loading ${item.name}`} size={24} />
          )}
        </span>
      ) : (
        <PlayMedia url={url} type={media.status === 'ready' ? media.type : ''} name={item.name} label={`Play ${item.name}`} className="media-strip__play" />
      )}
      <span className="media-strip__side">{side === 'front' ? 'Front' : 'Back'}</span>
      <button
        type="button"
        className="icon-button icon-button--danger"
        aria-label={`Remove ${item.name} from the ${side} of card ${n}`}
        title="Remove"
        onClick={(event) => onRemove(event.currentTarget)}
      >
        <X aria-hidden="true" size={16} />
      </button>
    </li>
  );
}

export const MediaStrip = memo(function MediaStrip({
  cardId,
  media,
  n,
  dispatch,
}: {
  cardId: string;
  media: readonly MediaRef[];
  n: number;
  dispatch: Dispatch<EditorAction>;
}) {
  if (media.length === 0) return null;
  return (
    <div role="cell" className="card-row__media">
      <ul className="media-strip" aria-label={`Pictures and sounds of card ${n}`}>
        {media.map((item) => (
          <Item
            key={`${item.field}:${item.hash}`}
            item={item}
            n={n}
            onRemove={(button) => {
              // The removed item's button goes: the focus moves to the row's "Pictures and sounds" button.
              button.closest('[role="row"]')?.querySelector<HTMLButtonElement>('button[data-action="media"]')?.focus();
              dispatch({ type: 'setMedia', id: cardId, media: removeMediaRef(media, item) });
            }}
          />
        ))}
      </ul>
    </div>
  );
});
