// Points for cooking with what one has: the top ten, my rank, and the cooks around me.
import { get, session } from "../api.js";
import { count, h, problem } from "../dom.js";

function table(entries, caption, me) {
  return h("div", { class: "table-fit" }, h("table", {}, h("caption", { class: "visually-hidden" }, caption),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Cook"), h("th", { scope: "col" }, "Points"))),
    h("tbody", {}, entries.map((entry) => h("tr", { class: entry.userId === me ? "me" : "" },
      h("td", {}, entry.rank), h("td", { class: "cook" }, entry.username), h("td", {}, entry.points))))));
}

export async function leaderboardScreen() {
  const me = session.current?.userId;
  const parts = [h("h1", {}, "Leaderboard")];
  try {
    // The API's ranks: equal points share one, and only cooks with points are in the top.
    const top = (await get("/v1/leaderboard?limit=10")).result;
    parts.push(h("h2", {}, "Top ten"), top.length ? table(top, "Top ten", me) : h("p", {}, "No points yet: be the first."));
  } catch (error) { parts.push(problem(error)); }
  if (me) {
    try {
      const mine = (await get("/v1/leaderboard/me")).result;
      parts.push(h("h2", {}, "You"), h("p", { id: "my-rank" },
        mine && mine.points > 0 ? `Rank ${mine.rank} with ${count(mine.points, "point")}.` : "No points yet."));
      parts.push(h("h2", {}, "Around you"), table((await get("/v1/leaderboard/around-me?radius=2")).result, "Around you", me));
    } catch (error) { parts.push(problem(error)); }
  }
  return parts;
}
