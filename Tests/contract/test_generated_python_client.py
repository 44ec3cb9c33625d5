"""An independent generator reads the whole contract: openapi-python-client makes a Python client
from schemas/openapi.yaml without a single warning (a warning is an operation or answer it skipped),
and the seed's first flow runs through that client against a real deployment, every answer typed:
register, log in by username and by email, search by ingredients, a recipe's detail (issue 43)."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = pathlib.Path(__file__).with_name("openapi-python-client.yaml")


def generate(tmp_path):
    generator = pathlib.Path(sys.executable).parent / "openapi-python-client"
    result = subprocess.run([str(generator), "generate", "--path", str(ROOT / "schemas" / "openapi.yaml"), "--meta", "none",
                             "--output-path", str(tmp_path / "pantry_api_client"), "--config", str(CONFIG)],
                            capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "warning" not in output.lower() and "error" not in output.lower(), output
    sys.path.insert(0, str(tmp_path))


def test_the_generated_client_runs_the_first_seed_flow_typed(api, tmp_path):
    generate(tmp_path)
    from pantry_api_client import AuthenticatedClient, Client
    from pantry_api_client.api.accounts import log_in, me, register, request_password_reset
    from pantry_api_client.api.recipes import recipe_detail, recipes_by_ingredients
    from pantry_api_client.models import (EmailCredentials, MeResponse200, Problem, RecipeAnswer, Registration,
                                          RegisterResponse201, RequestPasswordResetBody, Session, SummariesAnswer,
                                          UsernameCredentials)

    client = Client(base_url=api.url, raise_on_unexpected_status=True)
    registered = register.sync(client=client, body=Registration(username="generated", email="generated@example.org",
                                                                password="correct horse battery"))
    assert isinstance(registered, RegisterResponse201) and registered.username == "generated"
    by_name = log_in.sync(client=client, body=UsernameCredentials(username="Generated", password="correct horse battery"))
    by_email = log_in.sync(client=client, body=EmailCredentials(email="generated@example.org", password="correct horse battery"))
    assert isinstance(by_name, Session) and isinstance(by_email, Session)
    assert by_name.user_id == by_email.user_id == registered.user_id
    wrong = log_in.sync(client=client, body=UsernameCredentials(username="generated", password="not the password"))
    assert isinstance(wrong, Problem) and wrong.code == "invalid_credentials"

    signed_in = AuthenticatedClient(base_url=api.url, token=by_email.token, raise_on_unexpected_status=True)
    myself = me.sync(client=signed_in)
    assert isinstance(myself, MeResponse200) and myself.username == "generated"

    found = recipes_by_ingredients.sync(client=client, ingredients="egg,flour", number=3)
    assert isinstance(found, SummariesAnswer) and found.payload.summaries, found
    detail = recipe_detail.sync(found.payload.summaries[0].id, client=client)
    assert isinstance(detail, RecipeAnswer), detail
    recipe = detail.payload.recipe
    assert recipe.id == found.payload.summaries[0].id and recipe.title and recipe.ingredients
    assert all(isinstance(line.original, str) for line in recipe.ingredients)

    # This deployment sends no mail: the reset's problem is typed too.
    refused = request_password_reset.sync(client=client, body=RequestPasswordResetBody(email="generated@example.org"))
    assert isinstance(refused, Problem) and refused.code == "mail_unavailable"
