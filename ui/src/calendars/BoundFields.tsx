// Two optional whole-number bounds side by side, an empty box meaning "no bound": the date
// window's days back and ahead, and a duration rule's shortest and longest.
import { NumberField } from '../lib/NumberField';

export interface Bound {
  id: string;
  label: string;
  value: number | undefined;
  onChange: (value: number | undefined) => void;
}

interface Props {
  bounds: readonly [Bound, Bound];
  max?: number;
  /** What a refused entry is told. */
  refusal: string;
  /** Ids of the screen's own messages about both bounds. */
  describedBy?: string;
}

export function BoundFields({ bounds, max, refusal, describedBy }: Props) {
  return (
    <div className="cal-rule__pair">
      {bounds.map((bound) => (
        <NumberField
          key={bound.id}
          id={bound.id}
          label={bound.label}
          min={0}
          max={max}
          refusal={refusal}
          value={bound.value}
          describedBy={describedBy}
          onChange={(entry) => {
            if (entry.ok) bound.onChange(entry.value);
          }}
        />
      ))}
    </div>
  );
}
