/** Class names joined with spaces, the false ones left out. */
export const cls = (...names: (string | false | null | undefined)[]) => names.filter(Boolean).join(" ");
