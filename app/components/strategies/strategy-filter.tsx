// The "Strategy" filter of Positions and the Activity Log (decision 027): a plain GET form
// (?strategy=<id> | default), applied on change with JavaScript, with an Apply button without.
import { useLocation, useNavigate } from "@remix-run/react";
import { useHydrated } from "#app/utils/use-hydrated.ts";

export function StrategyFilter({
  strategies,
  value,
  testId,
}: {
  strategies: { id: string; name: string }[] | null | undefined;
  value: string | null | undefined;
  testId: string;
}) {
  const hydrated = useHydrated();
  const navigate = useNavigate();
  const location = useLocation();
  // No strategies (or a loader answer without them, e.g. its failure path): no filter.
  if (!strategies || strategies.length === 0) return null;
  return (
    <form
      method="get"
      action={location.pathname}
      data-testid={testId}
      style={{ display: "flex", gap: 8, alignItems: "center", flexWrap: "wrap", margin: "0 0 16px" }}
    >
      <label style={{ display: "flex", gap: 8, alignItems: "center" }}>
        <span style={{ fontWeight: 600 }}>Strategy</span>
        <select
          name="strategy"
          defaultValue={value ?? ""}
          onChange={(e) => {
            if (hydrated)
              navigate(
                `${location.pathname}${e.target.value ? `?strategy=${encodeURIComponent(e.target.value)}` : ""}`,
              );
          }}
          style={{
            padding: "6px 8px",
            font: "inherit",
            borderRadius: 6,
            background: "transparent",
            color: "inherit",
            maxWidth: "100%",
          }}
        >
          <StrategyOptions strategies={strategies} />
        </select>
      </label>
      {!hydrated ? <button type="submit">Apply</button> : null}
    </form>
  );
}

/** The choices of a strategy filter: all, the default strategy (global secret), each strategy. */
export function StrategyOptions({ strategies }: { strategies: { id: string; name: string }[] }) {
  return (
    <>
      <option value="">All strategies</option>
      <option value="default">default (global secret)</option>
      {strategies.map((s) => (
        <option key={s.id} value={s.id}>
          {s.name}
        </option>
      ))}
    </>
  );
}
