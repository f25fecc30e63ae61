// The edit form's post, read by the one schema (decision 048): levels named as the form shows them.
import { expect, test } from "vitest";
import { PositionEditSchema, positionEditFromForm } from "./position-edit.ts";

const form = (entries: [string, string][]) => {
  const data = new FormData();
  for (const [k, v] of entries) data.append(k, v);
  return data;
};

test("the form's levels after TP1 has filled are TP2 and TP3 in its messages", () => {
  const posted = positionEditFromForm(
    form([
      ["takeProfitsFrom", "2"],
      ["tpPrice", "3100"],
      ["tpClose", "50"],
      ["tpPrice", "-1"],
      ["tpClose", "50"],
    ]),
  );
  expect(posted).toMatchObject({ takeProfitsFrom: "2", takeProfits: [{ price: "3100" }, { price: "-1" }] });
  const parsed = PositionEditSchema.safeParse(posted);
  expect(parsed.success).toBe(false);
  expect(parsed.error!.issues.map((i) => i.message)).toEqual(["Take-profit 3 needs a price above 0"]);
});

test("without takeProfitsFrom (the API) the first level sent is 1; a number out of range is refused", () => {
  const parsed = PositionEditSchema.safeParse({ takeProfits: [{ price: "0", close: "50" }] });
  expect(parsed.error!.issues.map((i) => i.message)).toEqual(["Take-profit 1 needs a price above 0"]);
  expect(PositionEditSchema.safeParse({ takeProfitsFrom: 0 }).success).toBe(false);
  expect(PositionEditSchema.safeParse({ takeProfitsFrom: "x" }).success).toBe(false);
});
