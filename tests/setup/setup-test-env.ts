// Every Vitest file: a quiet, deterministic environment.
process.env.NODE_ENV = "test";
process.env.APP_SECRET ??= "test-app-secret-0123456789abcdef0123456789abcdef";
