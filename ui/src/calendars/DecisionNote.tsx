// Whether the hosted feed keeps the sample event, and the rule that drops it: shown in the sample
// browser and the preview.
import { CircleCheck, CircleX } from 'lucide-react';
import { describeDecision, type Decision } from './options';

export function DecisionNote({ decision }: { decision?: Decision }) {
  if (!decision) return null;
  return (
    <p className={decision.kept ? 'cal-decision cal-decision--kept' : 'cal-decision cal-decision--dropped'} data-kept={decision.kept}>
      {decision.kept ? <CircleCheck aria-hidden="true" size={16} /> : <CircleX aria-hidden="true" size={16} />}
      <span>{describeDecision(decision)}</span>
    </p>
  );
}
