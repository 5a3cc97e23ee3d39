// The placeholder shown while a lazily loaded part of the app arrives. Its own module so App and
// RouterApp can both use it without importing each other.

export function Loading() {
  return (
    <p className="loading" role="status">
      Loading…
    </p>
  );
}
