/// <reference types="@remix-run/dev" />
/// <reference types="@remix-run/node" />
declare module "react-dom/server.browser" {
  export * from "react-dom/server";
}
