// Points for cooking with what one has: the top ten, my rank, and the cooks around me.
import { get, session } from "../api.js";
import { count, h, problem } from "../dom.js";

/** Ranks as a cook reads them: equal points share a rank (the server orders ties by who got there
 *  first). A tie that begins above the first entry shown keeps that entry's own rank. */
function sharedRanks(entries) {
  return entries.map((entry, index) => {
    let first = index;
    while (first > 0 && entries[first - 1].points === entry.points) first--;
    return { ...entry, rank: entries[first].rank };
  });
}

function table(entries, caption, me) {
  return h("div", { class: "table-fit" }, h("table", {}, h("caption", { class: "visually-hidden" }, caption),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Cook"), h("th", { scope: "col" }, "Points"))),
    h("tbody", {}, sharedRanks(entries).map((entry) => h("tr", { class: entry.userId === me ? "me" : "" },
      h("td", {}, entry.rank), h("td", { class: "cook" }, entry.username), h("td", {}, entry.points))))));
}

export async function leaderboardScreen() {
  const me = session.current?.userId;
  const parts = [h("h1", {}, "Leaderboard")];
  let top = [];
  try {
    // Only cooks with points: a new account with none is not among the best.
    top = (await get("/v1/leaderboard?limit=10")).result.filter((entry) => entry.points > 0);
    parts.push(h("h2", {}, "Top ten"), top.length ? table(top, "Top ten", me) : h("p", {}, "No points yet: be the first."));
  } catch (error) { parts.push(problem(error)); }
  if (me) {
    try {
      const mine = (await get("/v1/leaderboard/me")).result;
      // Among the top ten the shared rank is known exactly; further down, the server's.
      const rank = sharedRanks(top).find((entry) => entry.userId === me)?.rank ?? mine?.rank;
      parts.push(h("h2", {}, "You"), h("p", { id: "my-rank" },
        mine && mine.points > 0 ? `Rank ${rank} with ${count(mine.points, "point")}.` : "No points yet."));
      parts.push(h("h2", {}, "Around you"), table((await get("/v1/leaderboard/around-me?radius=2")).result, "Around you", me));
    } catch (error) { parts.push(problem(error)); }
  }
  return parts;
}
