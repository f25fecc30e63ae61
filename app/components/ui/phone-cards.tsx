// Phone cards: on a phone (below 600 px, MUI's sm) a long list's rows are cards, one a row,
// with a head (what the row is, its status) and label / value facts; the screen's table is
// hidden there by its own `display: { xs: "none", sm: "block" }`. CSS alone switches the two
// (both are server-rendered), so it works without JavaScript. Positions and Trade History use
// it (issue 25: Trade History at 390 px was a 1,158 px table scrolled sideways). A card is a
// plain <li> with MUI's outlined Paper rules as a static class (./phone-cards.css.ts): an MUI
// Paper per card was 50 emotion serializations in each Trade History render (decision 043).
import type { ReactNode } from "react";
import { S } from "./phone-cards.css.ts";

/** The list of cards (hidden from 600 px). */
export function PhoneCards({ testId, label, children }: { testId: string; label?: string; children: ReactNode }) {
  return (
    <ul className={S.cards} data-testid={testId} aria-label={label}>
      {children}
    </ul>
  );
}

/** One card: `head` on top (left to right, `end` pushed right), then the facts, then `children` (links, buttons, details). */
export function PhoneCard({
  head,
  end,
  facts,
  children,
  testId,
  data,
}: {
  head: ReactNode;
  end?: ReactNode;
  facts?: ReactNode;
  children?: ReactNode;
  testId: string;
  data?: Record<`data-${string}`, string>;
}) {
  return (
    <li className={S.card} data-testid={testId} {...data}>
      <div className={S.head}>
        {head}
        {end ? (
          <>
            <span className={S.spacer} />
            {end}
          </>
        ) : null}
      </div>
      {facts ? <dl className={S.facts}>{facts}</dl> : null}
      {children}
    </li>
  );
}

/** A label / value pair of a card. */
export function Fact({
  label,
  title,
  className,
  testId,
  children,
}: {
  label: string;
  title?: string;
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <>
      <dt title={title}>{label}</dt>
      <dd className={className} data-testid={testId}>
        {children}
      </dd>
    </>
  );
}
