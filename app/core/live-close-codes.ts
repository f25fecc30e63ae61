// WebSocket close codes of the /ws live feed, shared by the server and the browser.
/** The session behind the socket has ended (logged out): reconnecting cannot succeed. */
export const SESSION_ENDED_CODE = 4401;
