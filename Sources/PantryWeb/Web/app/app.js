// Pantry's web app: one page, a screen per hash route (#/recipe/ID, #/groceries, ...), each screen
// a function that returns the nodes to show. Works offline for what was seen (see /sw.js).
import { ownPositions, refreshSessionIfDue, session } from "./api.js";
import { queuedChanges, sendQueuedChanges } from "./offline.js";
import { announce, h, problem } from "./dom.js";
import { describe, followLive, screensShowing } from "./live.js";
import { accountScreen, resetScreen } from "./screens/account.js";
import { browseScreen } from "./screens/browse.js";
import { cartScreen } from "./screens/cart.js";
import { favouritesScreen } from "./screens/favourites.js";
import { groceriesScreen } from "./screens/groceries.js";
import { leaderboardScreen } from "./screens/leaderboard.js";
import { recipeScreen } from "./screens/recipe.js";
import { searchScreen } from "./screens/search.js";

const routes = [
  [/^\/?$/, (query) => searchScreen(query), "Find recipes"],
  [/^\/recipe\/(.+)$/, (id) => recipeScreen(decodeURIComponent(id)), "Recipe"],
  [/^\/browse$/, () => browseScreen(), "Browse"],
  [/^\/favourites$/, () => favouritesScreen(), "Favourites"],
  [/^\/groceries$/, () => groceriesScreen(), "Groceries"],
  [/^\/cart$/, () => cartScreen(), "Cart"],
  [/^\/leaderboard$/, () => leaderboardScreen(), "Leaderboard"],
  [/^\/account$/, () => accountScreen(render), "Account"],
  [/^\/reset$/, (query) => resetScreen(render, query), "New password"],
];

const view = document.getElementById("view");
let rendering = 0;
let rendered = false;

/** `live`: redrawn for a change made elsewhere, so the focus and the scroll stay where they are. */
async function render({ live = false } = {}) {
  // A screen's choices ride after a "?" (#/?by=name&q=soup): the route is what comes before.
  const [path, query] = splitRoute(location.hash.replace(/^#/, "") || "/");
  const [pattern, screen, title] = routes.find(([pattern]) => pattern.test(path)) ?? [];
  const ticket = ++rendering;
  view.setAttribute("aria-busy", "true");
  let nodes;
  try {
    nodes = pattern ? await screen(...path.match(pattern).slice(1), query) : [h("h1", {}, "Not found"), h("p", {}, h("a", { href: "#/" }, "Find recipes"))];
  } catch (error) {
    nodes = [h("h1", {}, title ?? "Pantry"), problem(error)];
  }
  if (ticket !== rendering) return; // another screen was asked for meanwhile
  view.replaceChildren(...nodes);
  view.removeAttribute("aria-busy");
  const heading = view.querySelector("h1")?.textContent;
  document.title = heading ? `${heading} · Pantry` : "Pantry";
  for (const link of document.querySelectorAll("nav a")) {
    const target = link.getAttribute("href").replace(/^#/, "");
    const current = target === "/" ? path === "/" : path.startsWith(target);
    if (current) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  document.getElementById("account-link").textContent = session.current ? "Account" : "Log in";
  // A new screen takes the focus, so a keyboard or screen-reader user starts at its content; the
  // first page load leaves it at the top, where the skip link is.
  if (rendered && !live) view.focus({ preventScroll: true });
  rendered = true;
  followLive(showChange);
}

// A change made elsewhere redraws the screen that shows it, once a burst of them has passed, and
// not under the cook's fingers: while they type in a field of the screen, it waits for them to
// leave it. This page's own changes are drawn already; the stream may bring one back before its
// answer has come, so they are told apart when the burst has passed.
let redraw = null;
let arrived = [];
function showChange(change) {
  arrived.push(change);
  clearTimeout(redraw);
  redraw = setTimeout(function again() {
    const [path] = splitRoute(location.hash.replace(/^#/, "") || "/");
    const shown = arrived.filter((c) => !ownPositions.has(c.position) && screensShowing(c.type).some((screen) => path.startsWith(screen)));
    arrived = [];
    if (!shown.length) return;
    const field = document.activeElement;
    if (view.contains(field) && field.matches("input:not([type=checkbox]), textarea") && field.value) {
      arrived = shown;
      field.addEventListener("blur", () => { redraw = setTimeout(again, 0); }, { once: true });
      return;
    }
    announce(describe(shown[shown.length - 1]));
    const scroll = window.scrollY;
    render({ live: true }).then(() => window.scrollTo(0, scroll));
  }, 200);
}
window.addEventListener("pantry:reload", () => render({ live: true }));

function splitRoute(route) {
  const mark = route.indexOf("?");
  return mark < 0 ? [route, new URLSearchParams()] : [route.slice(0, mark) || "/", new URLSearchParams(route.slice(mark + 1))];
}

// A message belongs to the screen it was said on: it does not follow the cook to the next one,
// where it covered cards and buttons ("In the cart: 3" on the leaderboard).
window.addEventListener("hashchange", () => {
  document.getElementById("status").textContent = "";
  render();
});
render();
refreshSessionIfDue();
setInterval(refreshSessionIfDue, 5 * 60_000);
// Grocery changes made offline go out when the API answers again, whatever screen is open; the
// screen is then drawn from the server's list.
const sendTicks = () => {
  if (session.current && queuedChanges().length) sendQueuedChanges().then((sent) => { if (sent) render({ live: true }); });
};
setInterval(sendTicks, 30_000);
window.addEventListener("online", sendTicks);

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => { /* without it the app still works online */ });
}
