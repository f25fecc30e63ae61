import { useState } from "react";

/** Which rows of a table are expanded (by id), and a toggle for one row. */
export function useExpanded(): { isExpanded: (id: string) => boolean; toggle: (id: string) => void } {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (id: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return { isExpanded: (id) => expanded.has(id), toggle };
}
