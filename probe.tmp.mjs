import { chromium } from "playwright-core";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
const page = await browser.newPage();
page.on("console", (m) => console.log("console", m.type(), m.text().slice(0, 500)));
page.on("pageerror", (e) => console.log("pageerror", String(e).slice(0, 800)));
await page.goto("http://localhost:5055/login");
await page.waitForTimeout(1500);
await browser.close();
