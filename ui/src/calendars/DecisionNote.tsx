// Whether the hosted feed keeps the sample event, and the rule that drops it: shown in the sample
// browser and the preview. While the server is still deciding, a line of the same height holds
// its place, so the fields below do not jump when the answer comes.
import { CircleCheck, CircleDashed, CircleX } from 'lucide-react';
import { describeDecision, type Decision } from './options';

export function DecisionNote({ decision, pending = false }: { decision?: Decision; pending?: boolean }) {
  if (!decision) {
    if (!pending) return null;
    return (
      <p className="cal-decision-pending">
        <CircleDashed aria-hidden="true" size={16} />
        <span>Checking the filters…</span>
      </p>
    );
  }
  return (
    <p className={decision.kept ? 'cal-decision cal-decision--kept' : 'cal-decision cal-decision--dropped'} data-kept={decision.kept}>
      {decision.kept ? <CircleCheck aria-hidden="true" size={16} /> : <CircleX aria-hidden="true" size={16} />}
      <span>{describeDecision(decision)}</span>
    </p>
  );
}
