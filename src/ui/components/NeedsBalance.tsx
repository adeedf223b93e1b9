/** The mark of a paid model the balance cannot pay for: a lock and "Needs balance" (its accessible text). */
export function NeedsBalance() {
  return (
    <span className="badge badge-locked" title="A paid model: add funds to your balance to use it">
      <svg aria-hidden="true" viewBox="0 0 16 16" width="9" height="9" fill="currentColor">
        <path d="M4.5 7V5a3.5 3.5 0 0 1 7 0v2H12a1 1 0 0 1 1 1v6a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V8a1 1 0 0 1 1-1h.5Zm1.5 0h4V5a2 2 0 0 0-4 0v2Z" />
      </svg>{' '}
      Needs balance
    </span>
  );
}
