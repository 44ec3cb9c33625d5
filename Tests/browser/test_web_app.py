"""The web app that `pantry api` serves, used as a person would in real headless Chromium (Debian's
chromium and chromium-driver, driven by Selenium) against the real deployment, with an accessibility
check (axe-core) on every screen. With PANTRY_SCREENSHOTS=DIR (ops/screens) each screen is also
saved at 360 px and 1280 px wide."""
import json
import os
import time
import pathlib
import shutil
import subprocess
import sys
import urllib.request

import pytest
from axe_selenium_python import Axe
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from pantry_processes import ok, start_core_and_api, wait_for

SCREENSHOTS = os.environ.get("PANTRY_SCREENSHOTS")


def chromium(profile, width=1280):
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},900",
                     f"--user-data-dir={profile}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.implicitly_wait(0)
    return driver


@pytest.fixture
def browser(tmp_path):
    driver = chromium(tmp_path / "profile")
    yield driver
    driver.quit()


@pytest.fixture
def phone(tmp_path):
    """A second browser, 360 px wide: the same cook's phone beside the laptop."""
    driver = chromium(tmp_path / "phone", width=360)
    yield driver
    driver.quit()


class App:
    """The browser on one deployment, with the waits and checks every step needs."""

    def __init__(self, driver, port):
        self.driver = driver
        self.base = f"http://127.0.0.1:{port}"
        # A screen redrawn mid-check leaves stale handles: the wait asks again.
        self.wait = WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,))
        self.checked = []

    def open(self, route=""):
        self.driver.get(f"{self.base}/#{route}")
        self.settled()

    def go(self, route):
        self.driver.execute_script("location.hash = arguments[0]", route)
        self.settled()

    def settled(self):
        self.wait.until(lambda d: d.execute_script(
            "const v = document.getElementById('view'); return v && !v.hasAttribute('aria-busy') && v.querySelector('h1')"))

    def find(self, css):
        return self.wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, css)))

    def button(self, text, within=None):
        xpath = f".//button[normalize-space()='{text}']"
        return self.wait.until(lambda d: (within or d).find_element(By.XPATH, xpath))

    def click(self, xpath):
        """Finds and clicks in one step, again if the screen redrew the element in between (a live
        change or the offline notice redraws a list: a handle found before is stale)."""
        self.wait.until(lambda d: d.find_element(By.XPATH, xpath).click() or True)

    def fill(self, label, text, within=None):
        field = (within or self.driver).find_element(By.XPATH, f".//label[contains(normalize-space(), '{label}')]//*[self::input or self::textarea or self::select]")
        field.clear()
        field.send_keys(text)
        return field

    def search(self, text):
        """Types into the search's one field and asks."""
        field = self.find("#search-field")
        field.clear()
        field.send_keys(text)
        self.find("form[role=search] button[type=submit]").click()

    def choose(self, choice):
        """Picks "By ingredients" or "By name" as a tap would, on the segment's label."""
        self.wait.until(lambda d: d.find_element(By.XPATH, f"//fieldset[@class='segments']//label[normalize-space()='{choice}']")).click()
        self.wait.until(lambda d: d.execute_script(
            "const on = document.querySelector('.segments input:checked'); return on && on.parentElement.innerText.trim() === arguments[0]", choice))

    def focused_is(self, element):
        return self.driver.execute_script("return document.activeElement === arguments[0]", element)

    def heading_is(self, title):
        # Read in the page, and waited for: a click's old page (its own h1, not busy) may still be
        # showing, and its h1 replaced while being read (a stale element, seen on a loaded machine).
        self.wait.until(lambda d: d.execute_script(
            "const h = document.querySelector('#view h1'); return h && h.innerText.trim() === arguments[0].trim()", title))

    def text_appears(self, css, text):
        # Read in the page: a re-rendered list would make element handles stale mid-check.
        self.wait.until(lambda d: d.execute_script(
            "return [...document.querySelectorAll(arguments[0])].some(e => e.innerText.includes(arguments[1]))", css, text))

    def check_screen(self, name, screenshots=True):
        """No serious or critical accessibility violation, and the screenshots when asked for."""
        axe = Axe(self.driver)
        axe.inject()
        results = axe.run()
        bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
               for v in results["violations"] if v["impact"] in ("serious", "critical")]
        assert not bad, f"{name}: {bad}"
        self.checked.append(name)
        if SCREENSHOTS and screenshots:
            folder = pathlib.Path(SCREENSHOTS)
            folder.mkdir(parents=True, exist_ok=True)
            self.driver.execute_script("document.getElementById('status').textContent = ''; scrollTo(0, 0)")
            for width in (360, 1280):
                # The whole page: the window as tall as the page at this width (at most 4000 px).
                self.driver.set_window_size(width, 900)
                height = self.driver.execute_script("return document.documentElement.scrollHeight")
                self.driver.set_window_size(width, min(max(height + 140, 800), 4000))
                self.driver.save_screenshot(str(folder / f"{name}-{width}.png"))
            self.driver.set_window_size(1280, 900)


def test_a_cook_uses_every_screen_and_it_still_works_offline(processes, browser):
    api = start_core_and_api(processes)
    app = App(browser, api.port)
    app.open("/account")
    app.check_screen("account-logged-out")

    # Register: the session starts at once.
    register = app.find("form[aria-labelledby='register-title']")
    app.fill("Username", "browser-cook", register)
    app.fill("Email", "cook@example.org", register)
    app.fill("Password", "correct horse battery", register)
    app.button("Register", register).click()
    app.text_appears("#view", "Logged in as browser-cook")
    app.check_screen("account")
    # The service worker is in charge before any recipe is looked at, so each is kept for offline.
    app.wait.until(lambda d: d.execute_script("return navigator.serviceWorker.controller !== null"))

    # Search by what is at home.
    app.go("/")
    app.search("egg, tomato")
    first = app.find("ul[aria-label='Recipes using what you have'] li.card a")
    assert "uses 2 of yours" in app.find("ul[aria-label='Recipes using what you have'] li.card").text
    app.check_screen("search")
    app.choose("By name")
    app.search("soup")
    app.text_appears("#view h2", "minutes")
    app.check_screen("search-by-time")
    app.choose("By ingredients")

    # Open a recipe; "I have this" asks to start cooking first; "Start cooking" runs its countdown (and puts
    # nothing in the cart); then "I have this" earns a point and the rank shows.
    first = app.find("ul[aria-label='Recipes using what you have'] li.card a")
    title = first.find_element(By.TAG_NAME, "h3").text
    first.click()
    app.settled()
    app.heading_is(title)
    recipe_route = browser.execute_script("return location.hash").lstrip("#")
    # No photograph: no big drawn picture above the fold (it was the title again); cards keep theirs.
    assert not browser.find_elements(By.CSS_SELECTOR, "article img"), "the recipe screen repeats no title card"
    app.text_appears("#cart-count", "0")
    have = app.button("I have this")
    have.click()
    app.text_appears("#status", "Start cooking first")
    cook = app.button("Start cooking")
    cook.click()
    app.text_appears("#cooking-timer", "left")
    app.button("Restart timer")
    assert app.focused_is(cook), "the focus stays on the cooking button"
    have.click()
    app.text_appears("#points", "rank 1")
    assert app.find("#cart-count").text == "0", "cooking put nothing in the cart"
    assert "You have 1 point:" in app.find("#points").text, "one point, not 1 points"
    assert app.focused_is(have), "the focus stays on the button acted on"
    save = app.button("Save to favourites")
    save.click()
    app.text_appears("#saved-state", "Saved")
    app.button("Remove from favourites")
    assert app.focused_is(save)
    app.button("Add all to groceries").click()
    app.text_appears("#status", "added to the grocery list")
    app.find("button[aria-label='One more in the cart']").click()
    app.text_appears("#cart-count", "1")
    app.find("button[aria-label='One more in the cart']").click()
    app.text_appears("#cart-count", "2")
    # Opened again, the screen says what is true: saved, two in the cart, cooking.
    app.go("/browse")
    app.go(recipe_route)
    app.heading_is(title)
    app.text_appears("#saved-state", "Saved")
    app.button("Remove from favourites")
    app.text_appears("#cart-count", "2")
    app.text_appears("#cooking-timer", "left")
    tip = app.find("form[aria-label='Write a tip']")
    app.fill("Your tip", "Add a pinch of chilli.", tip)
    app.button("Post tip", tip).click()
    app.text_appears("ul[aria-label='Tips from cooks']", "browser-cook: Add a pinch of chilli.")
    app.check_screen("recipe")

    # Leaderboard: there, with the point.
    app.go("/leaderboard")
    app.text_appears("#my-rank", "Rank 1 with 1 point.")
    assert "browser-cook" in app.find("tr.me").text
    browser.set_window_size(360, 800)
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 360, "the leaderboard fits a phone"
    browser.set_window_size(1280, 900)
    app.check_screen("leaderboard")

    # Favourites: saved, and found by a word of its title.
    app.go("/favourites")
    app.text_appears("ul[aria-label='Saved recipes']", title)
    assert app.find("ul[aria-label='Saved recipes'] li.card img").get_attribute("src"), "favourites show the picture"
    app.check_screen("favourites")

    # Groceries: tick one, reload, still ticked.
    app.go("/groceries")
    box = app.find("#view li input[type=checkbox]")
    assert box.size["width"] >= 24 and box.size["height"] >= 24, f"a 24 px target: {box.size}"
    name = box.find_element(By.XPATH, "..").find_element(By.CSS_SELECTOR, ".name").text
    item = box.get_attribute("data-item")
    box.click()
    app.text_appears("#view h2", "In the basket")
    app.wait.until(lambda d: d.execute_script("return document.activeElement.dataset.item") == item,
                   "the ticked box keeps the focus in the redrawn list")
    assert browser.execute_script("return getComputedStyle(document.getElementById('status')).pointerEvents") == "none", \
        "the toast takes no taps"
    browser.refresh()
    app.settled()
    ticked = app.find("ul[aria-label='In the basket']")
    assert name in ticked.text and ticked.find_element(By.CSS_SELECTOR, "input").is_selected()
    app.check_screen("groceries")

    # Cart: two, then one fewer; only what the cook put there, no timer.
    app.go("/cart")
    app.text_appears("#view", "2 items in 1 recipe")
    assert app.find("ul[aria-label='Recipes in the cart'] li img").get_attribute("src"), "cart lines show the picture"
    fewer = app.find(f"button[aria-label='One fewer {title}']")
    fewer.click()
    app.text_appears("#view", "1 item in 1 recipe")
    assert not browser.find_elements(By.CSS_SELECTOR, "#view [role=timer]"), "the cart has no cooking timer"
    app.check_screen("cart")

    # Favourites: removed in the app.
    app.go("/favourites")
    app.find(f"button[aria-label='Remove {title} from favourites']").click()
    app.text_appears("#view", "Nothing saved yet")

    app.go("/browse")
    app.find("ul[aria-label='Featured today'] li.card")
    before = len(browser.find_elements(By.CSS_SELECTOR, "ul[aria-label='More recipes'] li"))
    app.button("Load more").click()
    app.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "ul[aria-label='More recipes'] li")) == before + 10)
    app.check_screen("browse")

    # Offline: the API is gone, yet the recipe seen before opens.
    api_process = processes.running[1]
    api_process.terminate()
    api_process.wait(timeout=10)
    app.open(recipe_route)
    app.heading_is(title)
    assert app.find("ul[aria-label='Ingredients'] li")
    # ... saying so, with the cart as last seen and no buttons that would fail.
    app.text_appears("#offline-notice", "Offline")
    app.text_appears("#cart-count", "1")
    assert not app.find("button[aria-label='One more in the cart']").is_enabled()
    app.go("/favourites")
    app.text_appears("#offline-notice", "Offline: your favourites")
    app.go("/cart")
    app.text_appears("ul[aria-label='Recipes in the cart']", title)
    # In the shop: the grocery list as last seen, and a tick kept until the API is back.
    app.go("/groceries")
    app.text_appears("#offline-notice", "Offline: your list")
    app.text_appears("ul[aria-label='In the basket']", name)
    box = app.find("#view li input[type=checkbox]:not(:checked)")
    offline_item = box.get_attribute("data-item")
    box.click()
    app.text_appears("#status", "sent when Pantry is back")
    app.wait.until(lambda d: d.execute_script(
        "return document.querySelector(`ul[aria-label='In the basket'] input[data-item='${arguments[0]}']`) !== null", offline_item))
    app.check_screen("groceries-offline")
    processes.start("api", "--port", str(api.port), "--password-cost", "10")
    wait_for(api.ready, timeout=60, what="the API to be back")
    app.go("/cart")
    app.go("/groceries")
    app.wait.until(lambda d: not d.find_element(By.ID, "offline-notice").text)
    token = browser.execute_script("return JSON.parse(localStorage.getItem('pantry.session')).token")
    items = {item["item"]: item for item in api.get("/v1/me/groceries", token=token).json["result"]}
    assert items[offline_item]["checked"], "the tick made offline reached the server"

    # Log out, and back in by email.
    app.open("/account")
    app.button("Log out").click()
    login = app.find("form[aria-labelledby='login-title']")
    app.fill("Username or email", "cook@example.org", login)
    app.fill("Password", "correct horse battery", login)
    app.button("Log in", login).click()
    app.text_appears("#view", "Logged in as browser-cook")

    # Delete the account: gone from the leaderboard, logged out.
    app.open("/account")
    remove = app.find("form[aria-labelledby='delete-title']")
    app.fill("Password", "correct horse battery", remove)
    app.button("Delete my account", remove).click()
    app.wait.until(ready.alert_is_present()).accept()
    app.find("form[aria-labelledby='register-title']")
    assert api.get("/v1/leaderboard?limit=10").json["result"] == []
    assert app.checked == ["account-logged-out", "account", "search", "search-by-time", "recipe", "leaderboard",
                           "favourites", "groceries", "cart", "browse", "groceries-offline"]


def test_the_app_works_with_the_keyboard_alone(processes, browser):
    from selenium.webdriver.common.keys import Keys

    api = start_core_and_api(processes)
    app = App(browser, api.port)
    app.open("/")

    def tab_to(matches, limit=60):
        for _ in range(limit):
            try:
                active = browser.switch_to.active_element
                if matches(active):
                    return active
                active.send_keys(Keys.TAB)
            except StaleElementReferenceException:
                continue  # the screen was redrawn under the focus: ask again
        raise AssertionError("never reached by Tab")

    # The skip link comes first and takes the focus to the content.
    first = tab_to(lambda e: e.tag_name == "a")
    assert first.text == "Skip to content"
    # Type two ingredients and press Enter.
    field = tab_to(lambda e: e.get_attribute("id") == "search-field")
    field.send_keys("egg, tomato", Keys.ENTER)
    app.find("ul[aria-label='Recipes using what you have'] li.card a")
    card = tab_to(lambda e: e.tag_name == "a" and e.find_elements(By.TAG_NAME, "h3"))
    title = card.find_element(By.TAG_NAME, "h3").text
    card.send_keys(Keys.ENTER)
    app.wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == title)
    # The main navigation by keyboard too.
    browser.execute_script("document.querySelector('.brand').focus()")
    link = tab_to(lambda e: e.text == "Leaderboard")
    link.send_keys(Keys.ENTER)
    app.wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Leaderboard")
    assert browser.switch_to.active_element.get_attribute("id") == "view", "the new screen takes the focus"


def test_one_search_screen_offers_a_choice_above_the_fold_that_keeps_the_focus_and_that_back_returns_to(processes, browser):
    """Issue 33, point 9: both searches were on one screen, the keyword form 6,000 px down on a phone
    once the ingredients had answered. Now one form with a choice, at 360 and 1280 px."""
    from selenium.webdriver.common.keys import Keys

    api = start_core_and_api(processes)
    app = App(browser, api.port)

    def above_the_fold():
        bottom = browser.execute_script(
            "return Math.max(...[...document.querySelectorAll('form[role=search] :is(input, select, button)')]"
            ".filter(e => e.offsetParent).map(e => e.getBoundingClientRect().bottom)) - innerHeight")
        assert bottom <= 0, f"the search form ends {bottom:.0f} px below the fold"

    def hash_has(**wanted):
        app.wait.until(lambda d: all(d.execute_script(
            "return new URLSearchParams(location.hash.split('?')[1] ?? '').get(arguments[0])", key) == value
            for key, value in wanted.items()))

    for width, height in ((360, 640), (1280, 800)):
        browser.set_window_size(width, height)
        app.open("/")
        above_the_fold()
        for segment in browser.find_elements(By.CSS_SELECTOR, ".segments label"):
            assert segment.size["width"] >= 24 and segment.size["height"] >= 24, f"a 24 px target: {segment.size}"
        assert app.find("#search-field").get_attribute("list") == "ingredient-suggestions", "ingredients come first"

        # More than five: said plainly, nothing asked. The autocomplete completes the last name typed.
        app.search("egg, tomato, rice, onion, garlic, leek")
        app.text_appears("section[aria-label='Recipes using your ingredients'] .error", "At most 5 ingredients: this has 6.")
        field = app.find("#search-field")
        field.clear()
        field.send_keys("egg, tom")
        app.wait.until(lambda d: d.execute_script(
            "return [...document.querySelectorAll('#ingredient-suggestions option')].some(o => o.value === 'egg, tomato')"))

        # By ingredients, one field for all of them; the answer stays below the form.
        app.search("egg, tomato")
        assert "uses 2 of yours" in app.find("ul[aria-label='Recipes using what you have'] li.card").text
        hash_has(by="ingredients", q="egg, tomato")

        # Switched by a tap: the focus is on the choice made, the field is next, and it is empty.
        app.choose("By name")
        assert browser.execute_script("return document.activeElement.value") == "name", "the focus stays on the choice"
        browser.switch_to.active_element.send_keys(Keys.TAB)
        assert browser.switch_to.active_element.get_attribute("id") == "search-field"
        assert browser.switch_to.active_element.get_attribute("value") == ""
        assert not app.find("section[aria-label='Recipes using your ingredients']").is_displayed()
        hash_has(by="name")
        above_the_fold()  # with the diet and grouping shown
        browser.switch_to.active_element.send_keys("soup", Keys.ENTER)
        app.text_appears("section[aria-label='Recipes by name'] h2", "minutes")
        assert "null" not in app.find("section[aria-label='Recipes by name']").text.split(), "no note is no text"
        hash_has(by="name", q="soup")

        # By keyboard: the arrow moves the choice and the focus with it; what was typed there is back.
        browser.execute_script("document.querySelector('.segments input:checked').focus()")
        browser.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
        app.wait.until(lambda d: d.execute_script("return document.activeElement.value") == "ingredients")
        assert app.find("#search-field").get_attribute("value") == "egg, tomato"
        assert app.find("ul[aria-label='Recipes using what you have'] li.card").is_displayed()

        # Back returns to the choice before, with its search asked again.
        browser.back()
        app.settled()
        hash_has(by="name", q="soup")
        app.wait.until(lambda d: d.execute_script("return document.querySelector('.segments input:checked').value") == "name")
        app.text_appears("section[aria-label='Recipes by name'] h2", "minutes")
        # And from a recipe, back finds the results it was opened from.
        card = app.find("section[aria-label='Recipes by name'] li.card a")
        title = card.find_element(By.TAG_NAME, "h3").text
        card.click()
        app.heading_is(title)
        browser.back()
        app.heading_is("Find recipes")
        app.text_appears("section[aria-label='Recipes by name'] li.card", title)
        assert app.find("#search-field").get_attribute("value") == "soup"
        app.check_screen(f"search at {width} px", screenshots=False)
    browser.set_window_size(1280, 900)


def test_a_change_not_confirmed_is_sent_again_with_its_key_and_counts_once(processes, browser):
    """Issue 33, point 4: with the core down a tap waited, failed with a raw "retry with the same
    Idempotency-Key", and the core wrote it when it came back; the app's retry, with a new key,
    wrote it again. Now the app retries with the action's one key, says plainly that it is not
    confirmed, and the tap again after the core is back counts once."""
    api = start_core_and_api(processes)
    user_id, token = api.register_and_log_in("retrying-cook")
    recipe = api.catalog_recipe()
    app = App(browser, api.port)
    app.open("/")
    browser.execute_script("localStorage.setItem('pantry.session', JSON.stringify("
                           "{token: arguments[0], userId: arguments[1], username: 'retrying-cook'}))", token, user_id)
    app.open(f"/recipe/{recipe['id']}")
    app.text_appears("#cart-count", "0")

    core = processes.running[0]
    core.terminate()
    core.wait(timeout=10)
    more = app.find("button[aria-label='One more in the cart']")
    more.click()
    WebDriverWait(browser, 60).until(lambda d: "Not confirmed" in d.find_element(By.ID, "status").text)
    assert "Idempotency-Key" not in browser.find_element(By.ID, "status").text

    processes.start("core")
    wait_for(api.ready, timeout=60, what="the core to be back")
    more.click()
    app.text_appears("#cart-count", "1")
    cart = api.get("/v1/me/cart", token=token).json["result"]
    assert [line["count"] for line in cart["lines"]] == [1], cart


def test_a_session_is_refreshed_before_it_expires_and_the_password_can_be_changed(processes, browser):
    """Issue 33, point 7: an expired token showed "Logged in as X" beside "the token is invalid";
    nothing renewed a token; the app had no change-password screen though the API has one."""
    api = start_core_and_api(processes)
    user_id, token = api.register_and_log_in("session-cook")
    app = App(browser, api.port)
    app.open("/")
    # The app's own note of when the token expires, set to half an hour from now: due for a refresh.
    browser.execute_script("localStorage.setItem('pantry.session', JSON.stringify({token: arguments[0], userId: arguments[1], "
                           "username: 'session-cook', expiresAt: Math.floor(Date.now() / 1000) + 1800}))", token, user_id)
    browser.refresh()  # the app starts again, as on the cook's next visit
    app.settled()
    app.wait.until(lambda d: d.execute_script("return JSON.parse(localStorage.getItem('pantry.session')).token") != token)
    renewed = browser.execute_script("return JSON.parse(localStorage.getItem('pantry.session'))")
    assert renewed["expiresAt"] > time.time() + 23 * 3600
    assert api.get("/v1/me", token=renewed["token"]).status == 200
    assert api.get("/v1/me", token=token).status == 401, "the old token ended with the refresh"

    app.open("/account")
    app.text_appears("#standing", "No points yet.")
    change = app.find("form[aria-labelledby='password-title']")
    app.fill("Current password", "correct horse battery", change)
    app.fill("New password", "a new horse battery", change)
    app.button("Change the password", change).click()
    app.text_appears("#password-changed", "Password changed")
    assert api.post("/v1/sessions", {"username": "session-cook", "password": "a new horse battery"}).status == 201
    app.check_screen("account-password")

    # A token that is no longer valid: the screen says the session ended, not "Logged in as".
    browser.execute_script("localStorage.setItem('pantry.session', JSON.stringify({token: 'expired.token', "
                           "userId: arguments[0], username: 'session-cook'}))", user_id)
    app.go("/")
    app.go("/account")
    app.text_appears("#session-ended", "Your session has ended")
    assert "Logged in as" not in app.find("#view").text
    app.find("form[aria-labelledby='login-title']")


def test_a_recipe_opens_with_the_ingredients_already_counted_said_and_disabled(processes, browser):
    """Issue 33, point 3: an ingredient that already earned its point said "I have this" until
    tapped (then 409 `already_used`). Now the recipe asks the API on opening."""
    api = start_core_and_api(processes)
    user_id, token = api.register_and_log_in("counted-cook")
    recipe = api.catalog_recipe()
    first, second = recipe["ingredients"][0]["name"], recipe["ingredients"][1]["name"]
    api.start_cooking(recipe["id"], token)
    ok(api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": first}, token=token), 201)
    app = App(browser, api.port)
    app.open("/")
    browser.execute_script("localStorage.setItem('pantry.session', JSON.stringify({token: arguments[0], userId: arguments[1], "
                           "username: 'counted-cook'}))", token, user_id)

    def have_button(name):  # the ingredients are listed in the recipe's order
        index = [i["name"] for i in recipe["ingredients"]].index(name) + 1
        return app.find(f"ul[aria-label='Ingredients'] > li:nth-child({index}) button")

    for width in (360, 1280):
        browser.set_window_size(width, 900)
        app.open(f"/recipe/{recipe['id']}")
        app.heading_is(recipe["title"])
        app.wait.until(lambda d: have_button(first).text == "Already counted")
        counted = have_button(first)
        assert counted.get_attribute("aria-disabled") == "true", "said and disabled, still focusable"
        assert have_button(second).text == "I have this" and have_button(second).get_attribute("aria-disabled") is None
        counted.click()  # does nothing: no request, no change
        assert have_button(first).text == "Already counted"
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    browser.set_window_size(1280, 900)


def test_numbers_read_as_a_cook_says_them_and_ties_share_a_rank(processes, browser):
    """Issue 33, point 8: "Milk 266.16 ml" from 1 cup + 2 tbsp, "garlic 3 clove", tied points with
    different ranks, and 0-point users filling the top ten. The ranks are the API's, the same in
    every table: "around you" for the last of four tied cooks starts inside the tie."""
    api = start_core_and_api(processes)
    recipe = api.catalog_recipe()
    names = ("tied-one", "tied-two", "tied-three", "tied-four", "no-points")
    cooks = [api.register_and_log_in(name) for name in names]
    for _, token in cooks[:4]:
        api.start_cooking(recipe["id"], token)
        ok(api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": recipe["ingredients"][0]["name"]},
                    token=token), 201)
    user_id, token = cooks[3]
    for body in ({"ingredient": "milk", "amount": 1, "unit": "cup"}, {"ingredient": "milk", "amount": 2, "unit": "tbsp"},
                 {"ingredient": "garlic", "amount": 3, "unit": "clove"}):
        ok(api.post("/v1/me/groceries", body, token=token), 201)
    app = App(browser, api.port)
    app.open("/")
    browser.execute_script("localStorage.setItem('pantry.session', JSON.stringify({token: arguments[0], userId: arguments[1], "
                           "username: 'tied-four'}))", token, user_id)
    app.open("/groceries")
    app.text_appears("#view li", "milk")
    rows = {row.find_element(By.CSS_SELECTOR, ".name").text: row.find_element(By.CSS_SELECTOR, ".meta").text
            for row in browser.find_elements(By.CSS_SELECTOR, "#view li")}
    assert rows["milk"] == "1⅛ cups" and rows["garlic"] == "3 cloves", rows

    for width in (360, 1280):
        browser.set_window_size(width, 900)
        app.go("/groceries")
        app.go("/leaderboard")
        app.text_appears("#my-rank", "Rank 1 with 1 point.")
        top, around = [[[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
                        for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
                       for table in browser.find_elements(By.CSS_SELECTOR, "table")]
        assert top == [["1", name, "1"] for name in names[:4]], top
        assert around == [["1", "tied-two", "1"], ["1", "tied-three", "1"], ["1", "tied-four", "1"],
                          ["5", "no-points", "0"]], around
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    browser.set_window_size(1280, 900)


def test_a_fallback_answer_says_so_and_an_empty_one_is_not_nothing_found(processes, browser):
    # The recipe service's quota spent: answers come from the offline catalog, marked "fallback".
    fake = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "fake_upstream.py"
    upstream = subprocess.Popen([sys.executable, str(fake), "0"], stdout=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{upstream.stdout.readline().split()[1]}"
        urllib.request.urlopen(f"{base}/_mode?set=quota402", timeout=5).read()
        api = start_core_and_api(processes, fetch_env={
            "PANTRY_PROVIDER": "spoonacular", "PANTRY_SPOONACULAR_URL": base, "PANTRY_SPOONACULAR_KEY": "k"})
        app = App(browser, api.port)
        app.open("/")
        app.search("egg")
        app.find("ul[aria-label='Recipes using what you have'] li.card")
        app.text_appears("#view .notice", "these come from the offline catalog")
        app.check_screen("search-fallback")

        app.choose("By name")
        app.search("zzzyxq")
        app.text_appears("#view .notice", "the offline catalog has nothing for this")
        assert "Nothing found" not in app.find("section[aria-label='Recipes by name']").text
    finally:
        upstream.terminate()
        upstream.wait(timeout=10)


def test_a_signed_in_cooks_own_featured_recipe_is_never_kept_by_the_service_worker(processes, browser):
    """Featured follows what a signed-in cook saves and cooks, so it is theirs: the service worker,
    which keeps recipes for offline use and is shared by whoever uses the browser next, must not
    keep it, while the recipes themselves are still kept."""
    api = start_core_and_api(processes)
    user_id, token = api.register_and_log_in("private-cook")
    recipe = api.catalog_recipe()
    app = App(browser, api.port)
    app.open("/")
    app.wait.until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
    browser.execute_script("localStorage.setItem('pantry.session', JSON.stringify({token: arguments[0], userId: arguments[1], "
                           "username: 'private-cook'}))", token, user_id)
    app.open("/browse")
    app.text_appears("section[aria-label='Featured'] h2", "Featured today")
    app.open(f"/recipe/{recipe['id']}")
    app.heading_is(recipe["title"])

    def kept():
        return browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "caches.keys().then((names) => Promise.all(names.map((name) => caches.open(name).then((c) => c.keys()))))"
            ".then((lists) => done(lists.flat().map((r) => decodeURIComponent(new URL(r.url).pathname))));")
    app.wait.until(lambda d: f"/v1/recipes/{recipe['id']}" in kept())
    assert "/v1/recipes/featured" not in kept(), kept()


def test_logging_out_empties_what_the_service_worker_kept_of_the_cooks_searches_and_recipes(processes, browser):
    """Issue 45: after a log-out the service worker still held the last cook's searches (30
    entries) for whoever used the browser next. The cook's browsing is kept apart from the app's
    files and deleted with the session; the app itself stays offline-ready."""
    api = start_core_and_api(processes)
    user_id, token = api.register_and_log_in("leaving-cook")
    app = App(browser, api.port)
    app.open("/")
    app.wait.until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
    browser.execute_script("localStorage.setItem('pantry.session', JSON.stringify({token: arguments[0], userId: arguments[1], "
                           "username: 'leaving-cook'}))", token, user_id)
    app.open("/")
    app.search("egg, tomato")
    first = app.find("ul[aria-label='Recipes using what you have'] li.card a")
    first.click()
    app.settled()

    def kept():
        return browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "caches.keys().then((names) => Promise.all(names.map((name) => caches.open(name).then((c) => c.keys()))))"
            ".then((lists) => done(lists.flat().map((r) => decodeURIComponent(new URL(r.url).pathname + new URL(r.url).search))));")
    app.wait.until(lambda d: any("egg" in url for url in kept()) and any(url.startswith("/v1/recipes/catalog") for url in kept()))

    app.open("/account")
    app.button("Log out").click()
    app.find("form[aria-labelledby='login-title']")
    left = kept()
    assert [url for url in left if url.startswith("/v1/")] == [], left
    assert "/app/app.js" in left, "the app's own files stay for offline use"


def test_two_members_of_a_household_see_each_others_changes_within_a_second_and_offline_changes_count_once(processes, browser, phone):
    """Issue 42: a tick on the phone appeared on the laptop only after a reload, and two people
    could not share a list. Two members of one household, on a laptop (1280 px) and a phone
    (360 px): an item added on one and ticked on the other shows on both within 1 s, saying who
    did it, with no reload. Then the phone goes offline, makes three changes (an add, an untick, a
    removal), comes back: both show the same list, and the log holds each change once."""
    api = start_core_and_api(processes)
    alex_id, alex = api.register_and_log_in("alex-at-home")
    sam_id, sam = api.register_and_log_in("sam-at-home")
    household = ok(api.post("/v1/households", token=alex), 201)["householdId"]
    code = ok(api.post("/v1/me/household/invites", token=alex), 201)["code"]
    ok(api.post("/v1/households/join", {"code": code}, token=sam))
    ok(api.post("/v1/me/groceries", {"ingredient": "Milk"}, token=sam), 201)
    laptop, handset = App(browser, api.port), App(phone, api.port)
    for app, (user_id, token, name) in ((laptop, (alex_id, alex, "alex-at-home")), (handset, (sam_id, sam, "sam-at-home"))):
        app.open("/")
        app.driver.execute_script("localStorage.setItem('pantry.session', JSON.stringify("
                                  "{token: arguments[0], userId: arguments[1], username: arguments[2]}))", token, user_id, name)
        app.open("/groceries")
        app.text_appears("#view", "Shared with your household")
        app.driver.execute_script("window.pantryPageMark = 42")
    laptop.text_appears("#view li", "added by sam-at-home")
    laptop.check_screen("groceries-household")
    # Both streams are open before the change (their first heartbeat is in).
    time.sleep(1)

    handset.fill("Item", "Saffron threads")
    # Timed from the tap on the phone: the command's round trip, the stream and the laptop's redraw.
    started = time.monotonic()
    handset.click("//form[@aria-label='Add to the list']//button[@type='submit']")
    WebDriverWait(browser, 5, poll_frequency=0.05).until(lambda d: d.execute_script(
        "return [...document.querySelectorAll('#view li')].some(e => e.innerText.includes('Saffron threads'))"))
    shown_after = time.monotonic() - started
    assert shown_after < 1.0, f"the laptop showed the phone's item {shown_after:.2f} s after the tap"
    laptop.text_appears("#status", "sam-at-home")

    saffron = "//li[.//span[@class='name' and normalize-space()='Saffron threads']]//input[@type='checkbox']"
    laptop.wait.until(lambda d: d.find_element(By.XPATH, saffron))
    started = time.monotonic()
    laptop.click(saffron)
    WebDriverWait(phone, 5, poll_frequency=0.05).until(lambda d: d.execute_script(
        "return [...document.querySelectorAll('#view li.checked')].some(e => e.innerText.includes('Saffron threads'))"))
    ticked_after = time.monotonic() - started
    assert ticked_after < 1.0, f"the phone showed the laptop's tick {ticked_after:.2f} s after the tap"
    handset.text_appears("#view li.checked", "ticked by alex-at-home")
    for app in (laptop, handset):
        assert app.driver.execute_script("return window.pantryPageMark") == 42, "the page was not reloaded"
    print(f"live: from the tap to the other member's screen, an add {shown_after * 1000:.0f} ms, a tick {ticked_after * 1000:.0f} ms")

    # Offline on the phone: three changes are kept with their keys, then sent once it is back.
    phone.set_network_conditions(offline=True, latency=0, download_throughput=0, upload_throughput=0)
    handset.fill("Item", "Basil")
    handset.click("//form[@aria-label='Add to the list']//button[@type='submit']")
    handset.text_appears("#status", "sent when Pantry is back")
    handset.click(saffron)
    handset.text_appears("#status", "sent when Pantry is back")
    handset.click("//li[.//span[@class='name' and normalize-space()='Milk']]//button[normalize-space()='Remove']")
    handset.wait.until(lambda d: d.execute_script(
        "return ![...document.querySelectorAll('#view li')].some(e => e.innerText.includes('Milk'))"))
    phone.delete_network_conditions()
    phone.execute_script("window.dispatchEvent(new Event('online'))")
    expected = [("Basil", False), ("Saffron threads", False)]
    def shown(driver):
        return driver.execute_script(
            "return [...document.querySelectorAll('#view ul.list li')].map(e => [e.querySelector('.name').innerText, e.classList.contains('checked')])")
    for driver in (browser, phone):
        WebDriverWait(driver, 10, poll_frequency=0.1).until(lambda d: sorted(map(tuple, shown(d))) == expected)
    items = ok(api.get("/v1/me/groceries", token=alex))["result"]
    assert sorted((item["ingredient"], item["checked"], item["unmeasuredAdds"]) for item in items) == [
        ("Basil", False, 1), ("Saffron threads", False, 1)]
    events = [json.loads(line) for line in processes.run("events").stdout.decode().splitlines()]
    shared = [e["type"] for e in events if e["data"].get("household") == household]
    # Milk, saffron and basil added once each; the laptop's tick and the phone's untick; the removal.
    assert sorted(shared) == sorted(["GroceryAdded"] * 3 + ["GroceryChecked"] * 2 + ["GroceryRemoved"]), shared


def test_a_forgotten_password_is_set_again_from_the_mailed_link(processes, browser):
    from test_password_reset import Inbox, smtp_server, token_in
    from pantry_processes import free_port

    inbox = Inbox()
    smtp_port = free_port()
    server = smtp_server(inbox, smtp_port)
    try:
        api = start_core_and_api(processes, env={"PANTRY_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}",
                                                 "PANTRY_PUBLIC_URL": "http://pantry.example"})
        _, old_token = api.register_and_log_in("lost-cook")
        app = App(browser, api.port)
        app.open("/account")
        app.find("#forgot-password summary").click()
        ask = app.find("form[aria-label='Send a link to set a new password']")
        app.fill("Email of the account", "lost-cook@example.org", ask)
        app.button("Send me a link", ask).click()
        app.text_appears("#reset-sent", "If an account has this address")
        app.check_screen("account-forgot-password")

        wait_for(lambda: inbox.to("lost-cook@example.org"), what="the reset mail")
        token = token_in(inbox.to("lost-cook@example.org")[0])
        app.open(f"/reset?token={token}")
        app.heading_is("New password")
        app.check_screen("reset-password")
        app.fill("New password", "a brand new horse")
        app.button("Set the new password").click()
        app.heading_is("Your account")
        app.text_appears("#view", "Logged in as lost-cook")
        assert "token=" not in browser.current_url, "the used link leaves the address bar"
        assert api.get("/v1/me", token=old_token).status == 401, "every earlier session ended"
        assert api.post("/v1/sessions", {"username": "lost-cook", "password": "correct horse battery"}).status == 401
        # The link again: refused, and the page says why.
        app.open(f"/reset?token={token}")
        app.fill("New password", "yet another horse")
        app.button("Set the new password").click()
        app.text_appears("#view", "used already")
    finally:
        server.stop()
