import type { DepositMethod } from '../../protocol/payments';

/**
 * A deposit method's logo, drawn here (nothing is fetched): a disc in the method's colour with its symbol, and a
 * small ring for a stablecoin on a named network.
 */
export function MethodLogo({ method, size = 28 }: { method: DepositMethod; size?: number }) {
  return (
    <svg className="method-logo" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <circle cx="16" cy="16" r="15" fill={method.colour} />
      {method.network && <circle cx="16" cy="16" r="12.5" fill="none" stroke="#ffffff" strokeOpacity="0.55" strokeWidth="1.2" />}
      <text x="16" y="16" textAnchor="middle" dominantBaseline="central" fontSize={method.symbol.length > 1 ? 11 : 15} fontWeight="700" fill="#ffffff" fontFamily="system-ui, sans-serif">
        {method.symbol}
      </text>
    </svg>
  );
}
