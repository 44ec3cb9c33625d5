// Pantry's web app: one page, a screen per hash route (#/recipe/ID, #/groceries, ...), each screen
// a function that returns the nodes to show. Works offline for what was seen (see /sw.js).
import { refreshSessionIfDue, session } from "./api.js";
import { queuedTicks, sendQueuedTicks } from "./offline.js";
import { h, problem } from "./dom.js";
import { accountScreen } from "./screens/account.js";
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
];

const view = document.getElementById("view");
let rendering = 0;
let rendered = false;

async function render() {
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
  if (rendered) view.focus({ preventScroll: true });
  rendered = true;
}

function splitRoute(route) {
  const mark = route.indexOf("?");
  return mark < 0 ? [route, new URLSearchParams()] : [route.slice(0, mark) || "/", new URLSearchParams(route.slice(mark + 1))];
}

window.addEventListener("hashchange", render);
render();
refreshSessionIfDue();
setInterval(refreshSessionIfDue, 5 * 60_000);
// Grocery ticks made offline go out when the API answers again, whatever screen is open.
const sendTicks = () => { if (session.current && queuedTicks().length) sendQueuedTicks(); };
setInterval(sendTicks, 30_000);
window.addEventListener("online", sendTicks);

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => { /* without it the app still works online */ });
}
