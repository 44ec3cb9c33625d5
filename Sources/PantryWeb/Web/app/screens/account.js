// Register, log in, a forgotten password by email, change the password, log out, and close the
// account for good.
import { del, get, post, put, session } from "../api.js";
import { announce, count, h, problem } from "../dom.js";

function field(label, attributes) {
  return h("label", {}, label, h("input", { required: true, ...attributes }));
}

export async function accountScreen(render, ended = false) {
  const current = session.current;
  if (!current) {
    const registerError = h("div", { "aria-live": "polite" });
    const register = h("form", { "aria-labelledby": "register-title", onsubmit: async (event) => {
      event.preventDefault();
      const data = Object.fromEntries(new FormData(register));
      try {
        session.save(await post("/v1/accounts", data));
        announce(`Welcome, ${data.username}`);
        render();
      } catch (error) { registerError.replaceChildren(problem(error)); }
    } }, h("h2", { id: "register-title" }, "Register"),
    field("Username", { name: "username", autocomplete: "username" }),
    field("Email", { name: "email", type: "email", autocomplete: "email" }),
    field("Password (at least 8 characters)", { name: "password", type: "password", minlength: 8, autocomplete: "new-password" }),
    h("p", {}, h("button", { type: "submit" }, "Register")), registerError);

    const logInError = h("div", { "aria-live": "polite" });
    const logIn = h("form", { "aria-labelledby": "login-title", onsubmit: async (event) => {
      event.preventDefault();
      const data = Object.fromEntries(new FormData(logIn));
      const body = data.name.includes("@") ? { email: data.name, password: data.password } : { username: data.name, password: data.password };
      try {
        session.save(await post("/v1/sessions", body));
        announce("Logged in");
        render();
      } catch (error) { logInError.replaceChildren(problem(error)); }
    } }, h("h2", { id: "login-title" }, "Log in"),
    field("Username or email", { name: "name", autocomplete: "username" }),
    field("Password", { name: "password", type: "password", autocomplete: "current-password" }),
    h("p", {}, h("button", { type: "submit" }, "Log in")), logInError, forgotPassword());
    return [h("h1", {}, "Your account"),
      ended ? h("p", { class: "error", role: "alert", id: "session-ended" }, "Your session has ended: log in again.") : null,
      h("div", { class: "row" }, logIn, register)];
  }

  const standing = h("p", { id: "standing" });
  try {
    const me = await get("/v1/me");
    standing.textContent = me.points > 0 ? `${count(me.points, "point")}, rank ${me.rank}.` : "No points yet.";
  } catch (error) {
    // An expired or revoked token: api.js forgot it; the screen says so instead of "Logged in as".
    if (error.status === 401) return accountScreen(render, true);
    standing.replaceChildren(problem(error));
  }
  const logOut = h("button", { type: "button", onclick: async () => {
    try { await del("/v1/sessions/current"); } catch { /* the token is forgotten here either way */ }
    await session.clear();
    announce("Logged out");
    render();
  } }, "Log out");
  const deleteError = h("div", { "aria-live": "polite" });
  const password = h("input", { type: "password", name: "password", required: true, autocomplete: "current-password" });
  const remove = h("form", { "aria-labelledby": "delete-title", onsubmit: async (event) => {
    event.preventDefault();
    if (!confirm("Delete your account and everything in it, for good?")) return;
    try {
      await del("/v1/me", { password: password.value });
      await session.clear();
      announce("Your account is deleted");
      render();
    } catch (error) { deleteError.replaceChildren(problem(error)); }
  } }, h("h2", { id: "delete-title" }, "Delete the account"),
  h("p", {}, "Your name disappears from the leaderboard and your lists are gone; this cannot be undone."),
  h("label", {}, "Password", password), h("p", {}, h("button", { type: "submit", class: "danger" }, "Delete my account")), deleteError);
  const passwordMessage = h("div", { "aria-live": "polite" });
  const change = h("form", { "aria-labelledby": "password-title", onsubmit: async (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(change));
    try {
      // The answer is the one session that stays: every other one of the account has ended.
      session.save(await put("/v1/me/password", { currentPassword: data.currentPassword, newPassword: data.newPassword }));
      change.reset();
      passwordMessage.replaceChildren(h("p", { id: "password-changed" }, "Password changed; your other sessions have ended."));
    } catch (error) { passwordMessage.replaceChildren(problem(error)); }
  } }, h("h2", { id: "password-title" }, "Change the password"),
  field("Current password", { name: "currentPassword", type: "password", autocomplete: "current-password" }),
  field("New password (at least 8 characters)", { name: "newPassword", type: "password", minlength: 8, autocomplete: "new-password" }),
  h("p", {}, h("button", { type: "submit" }, "Change the password")), passwordMessage);
  return [h("h1", {}, "Your account"), h("p", {}, `Logged in as ${current.username}.`), standing, h("p", {}, logOut), change, remove];
}

// "Forgot password?": a link by email. The answer is the same whether or not the address has an
// account, so the screen says what the API says and nothing more.
function forgotPassword() {
  const message = h("div", { "aria-live": "polite" });
  const form = h("form", { "aria-label": "Send a link to set a new password", onsubmit: async (event) => {
    event.preventDefault();
    try {
      const answer = await post("/v1/password-resets", { email: new FormData(form).get("email") });
      form.reset();
      message.replaceChildren(h("p", { id: "reset-sent" }, answer.detail));
    } catch (error) { message.replaceChildren(problem(error)); }
  } },
  field("Email of the account", { name: "email", type: "email", autocomplete: "email" }),
  h("p", {}, h("button", { type: "submit" }, "Send me a link")), message);
  return h("details", { id: "forgot-password" }, h("summary", {}, "Forgot password?"), form);
}

// The page a reset link opens (#/reset?token=...): a new password, which ends every session of
// the account and logs this one in.
export function resetScreen(render, query) {
  const token = query.get("token") ?? "";
  const message = h("div", { "aria-live": "polite" });
  const form = h("form", { "aria-labelledby": "reset-title", onsubmit: async (event) => {
    event.preventDefault();
    try {
      session.save(await post("/v1/password-resets/confirm", { token, newPassword: new FormData(form).get("newPassword") }));
      announce("Your new password is set");
      // Off the link's page: the token is used up, and should not stay in the address bar.
      location.replace("#/account");
    } catch (error) { message.replaceChildren(problem(error)); }
  } }, h("h2", { id: "reset-title" }, "Choose a new password"),
  h("p", {}, "Every session of the account ends, on every device; this one stays logged in."),
  field("New password (at least 8 characters)", { name: "newPassword", type: "password", minlength: 8, autocomplete: "new-password" }),
  h("p", {}, h("button", { type: "submit" }, "Set the new password")), message);
  return token ? [h("h1", {}, "New password"), form]
    : [h("h1", {}, "New password"), h("p", { class: "error" }, "This link has no token: ask for a new one from the log-in screen."),
      h("p", {}, h("a", { href: "#/account" }, "Log in"))];
}
