// /exchanges: the Exchanges screen (docs/spec/screens.md; app/components/exchanges/exchanges-screen.tsx).
// Every logged-in user sees the table; changes are admin-only (loader passes isAdmin, the
// action requires admin). The action is the no-JavaScript path of every button: intent
// add | sandbox | enabled | test | delete, the same operations as the JSON API, answered by a
// redirect with a flash toast (or, for an invalid Connect Exchange form, the page again with
// the messages beside the fields). intent contract-sizes stores the simulator's "Use Coinbase
// contract sizes" (docs/decisions/025-contracts-and-rounding.md).
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  json,
  redirect,
} from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { ExchangesScreen } from "#app/components/exchanges/exchanges-screen.tsx";
import { AddExchangeFormSchema } from "#app/core/schemas/exchange-connection.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import {
  coinbaseTester,
  contractSizesState,
  addExchangeConnection,
  switchCoinbaseContractSizes,
  deleteExchange,
  listExchanges,
  testExchange,
  updateExchangeFlags,
} from "#app/services/exchange-connections.server.ts";
import { requireAdmin, requireUser } from "#app/services/sessions.server.ts";
import { OpenExposureError } from "#app/services/exposure.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const url = new URL(request.url);
  const sizes = await contractSizesState(context.db);
  return json(
    {
      exchanges: await listExchanges(context.db),
      isAdmin: user.role === "admin",
      addOpen: url.searchParams.get("add") === "1",
      confirmDeleteId: url.searchParams.get("confirmDelete"),
      contractSizes: { on: sizes.on, chosen: sizes.chosen },
      // Connect Exchange says that saving turns "Use Coinbase contract sizes" on (issue 22).
      contractSizesSwitch: user.role === "admin" && sizes.switchPending,
    },
    { headers: NO_STORE },
  );
}

const failed = (title: string, description: string): Toast => ({ title, description, variant: "destructive" });

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("id") ?? "");
  const back = (toast: Toast, to = "/exchanges") => redirectWithToast(context, to, toast, { headers: NO_STORE });

  if (intent === "add") {
    const submission = parseWithZod(form, { schema: AddExchangeFormSchema });
    if (submission.status !== "success") {
      return json(
        { addResult: submission.reply({ hideFields: ["apiSecret", "passphrase"] }) },
        { status: 400, headers: NO_STORE },
      );
    }
    try {
      const created = await addExchangeConnection(context.db, context.config, submission.value, user.username);
      return back({
        title: "Exchange Added",
        description: `${created.accountName} is connected${created.sandbox ? " (sandbox)" : ""}${created.notice ? `. ${created.notice}` : ""}`,
      });
    } catch (error) {
      if (error instanceof OpenExposureError) return back(failed("Error Adding Exchange", error.message));
      console.warn(`adding an exchange failed: ${(error as Error).message}`);
      return back(failed("Error Adding Exchange", "Failed to add exchange"));
    }
  }

  if (intent === "sandbox" || intent === "enabled") {
    const value = form.get("value") === "true";
    const patch = intent === "sandbox" ? { sandbox: value } : { isEnabled: value };
    const title = intent === "sandbox" ? "Error Updating Sandbox Mode" : "Error Updating Exchange";
    const updated = await updateExchangeFlags(context.db, id, patch, user.username).catch((error: Error) => {
      if (error instanceof OpenExposureError) return error;
      console.warn(`updating exchange ${id} failed: ${error.message}`);
      return undefined;
    });
    if (updated instanceof OpenExposureError) return back(failed(title, updated.message));
    if (updated === null) return back(failed(title, "The exchange no longer exists"));
    if (!updated) return back(failed(title, "Failed to update exchange"));
    return back(
      intent === "sandbox"
        ? {
            title: "Sandbox Mode Updated",
            description: `${updated.accountName} now ${value ? "uses the sandbox: paper trading" : "trades live on Coinbase"}`,
          }
        : { title: "Exchange Updated", description: `${updated.accountName} is now ${value ? "enabled" : "disabled"}` },
    );
  }

  if (intent === "contract-sizes") {
    const value = form.get("value") === "true";
    await switchCoinbaseContractSizes(context.db, value, user.username);
    return back({
      title: "Simulator Setting Updated",
      description: value
        ? "Paper orders are sized in whole Coinbase contracts"
        : "Paper orders use the simulator's own increments",
    });
  }

  if (intent === "test") {
    const outcome = await testExchange(context.db, context.config, id, user.username, coinbaseTester(context.db)).catch(
      (error: Error) => {
        console.warn(`testing exchange ${id} failed: ${error.message}`);
        return undefined;
      },
    );
    if (outcome === null) return back(failed("Connection Test Failed", "The exchange no longer exists"));
    if (!outcome) return back(failed("Connection Test Failed", "Failed to test connection"));
    return back(
      outcome.success
        ? { title: "Connection Successful", description: outcome.message }
        : failed("Connection Failed", outcome.message),
    );
  }

  if (intent === "delete") {
    // Without JavaScript there is no browser confirmation: ask on the page first.
    if (form.get("confirmed") !== "1")
      return redirect(`/exchanges?confirmDelete=${encodeURIComponent(id)}`, { headers: NO_STORE });
    const removed = await deleteExchange(context.db, id, user.username).catch((error: Error) => {
      if (error instanceof OpenExposureError) return error;
      console.warn(`deleting exchange ${id} failed: ${error.message}`);
      return undefined;
    });
    if (removed instanceof OpenExposureError) return back(failed("Error Deleting Exchange", removed.message));
    if (removed === null) return back(failed("Error Deleting Exchange", "The exchange no longer exists"));
    if (!removed) return back(failed("Error Deleting Exchange", "Failed to delete exchange"));
    return back({ title: "Exchange Deleted", description: `${removed.accountName} has been removed` });
  }

  return json({ error: "Unknown action" }, { status: 400, headers: NO_STORE });
}

export const headers: HeadersFunction = () => NO_STORE;

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const addResult = actionData && "addResult" in actionData ? actionData.addResult : undefined;
  return (
    <ExchangesScreen
      exchanges={data.exchanges}
      isAdmin={data.isAdmin}
      addOpen={data.addOpen}
      confirmDeleteId={data.confirmDeleteId}
      addResult={addResult}
      contractSizes={data.contractSizes}
      contractSizesSwitch={data.contractSizesSwitch}
    />
  );
}

export const meta: MetaFunction = () => [{ title: "Exchanges · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
