// A reload (F5) of an open inspector tab: the page removed its token from the address bar and
// kept it in this tab's sessionStorage (which no other tab or site can read); come back with it.
// The token is taken out first: if it is refused (an inspector restarted on the same port with
// a new token), this page stays instead of reloading forever. The page stores it again.
const token = sessionStorage.getItem("mcpkit-inspector-token");
if (token) {
  sessionStorage.removeItem("mcpkit-inspector-token");
  location.replace("/?token=" + encodeURIComponent(token));
}
