throw new Error("@napi-rs/canvas is stubbed out: pdf.js runs in the browser only");
