// The owner page's route (/owner), loaded on first visit like the other tools.
import { OwnerPage } from './OwnerPage';
import './owner.css';

export default function OwnerRoutes() {
  return <OwnerPage />;
}
