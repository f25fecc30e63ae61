// Any /api path no route claims: 404 JSON, whatever the method.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { jsonError } from "#app/utils/api.server.ts";

export async function loader(_: LoaderFunctionArgs) {
  return jsonError(404, "Not found");
}

export async function action(_: ActionFunctionArgs) {
  return jsonError(404, "Not found");
}
