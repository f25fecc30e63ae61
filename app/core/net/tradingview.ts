// TradingView's published webhook sender addresses (tradingview.com, "Webhooks"): what the
// allowlist shorthand "tradingview" stands for. Shared by the server and the Webhook Config
// screen.
export const TRADINGVIEW_ADDRESSES = ["52.89.214.238", "34.212.75.30", "54.218.53.128", "52.32.178.7"];
