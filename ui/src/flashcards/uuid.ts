// Card and deck ids: the shared generator (works over plain http too).
export { newId } from '../lib/uuid';
