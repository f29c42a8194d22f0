"""The Bolivian Cacho blueprint through the test client: every endpoint, every refusal, no camera (dice by hand)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from engines.bolivia import replay_lines
from tests.bolivia.kiosk_play import act, cell, new_game, roll_by_hand, set_faces, state, turn
from tests.kiosk.conftest import Coordinator, become_coordinator, make_app

HOW = "Cómo se juega"
CROSS = "Cómo se juega: la cruz"


# ------------------------------------------------------------------ setup and security


def test_home_offers_a_new_bolivian_game_to_the_coordinator(coordinator: Coordinator) -> None:
    page = coordinator.get("/").text
    assert 'href="/bolivia/new"' in page and "Nueva partida de Cacho boliviano" in page
    form = coordinator.get("/bolivia/new")
    assert form.status_code == 200 and 'name="three_hatches"' in form.text and 'name="teams"' in form.text


def test_without_the_pin_only_the_tv_and_the_state_are_open(client: FlaskClient, coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    stranger = client.application.test_client()
    assert stranger.get("/bolivia/new").status_code == 302
    assert stranger.get(f"/bolivia/{gid}").status_code == 302
    assert stranger.get(f"/bolivia/{gid}/export.jsonl").status_code == 302
    assert stranger.get(f"/bolivia/{gid}/tv").status_code == 200
    view = stranger.get(f"/bolivia/{gid}/state.json").get_json()
    assert view["view"] == "tv" and "legal" not in view and "advice" in view
    # Without the PIN a POST is refused: first the CSRF token (none in this session), then the PIN.
    assert stranger.post(f"/bolivia/{gid}/undo", json={}).status_code == 400
    token = stranger.get("/login").text.split('name="csrf-token" content="')[1].split('"')[0]
    answer = stranger.post(f"/bolivia/{gid}/manual", json={}, headers={"X-CSRF-Token": token})
    assert answer.status_code == 401 and "PIN" in answer.get_json()["error"]


def test_posts_without_the_csrf_token_are_refused(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    response = coordinator.client.post(f"/bolivia/{gid}/manual", json={})
    assert response.status_code == 400 and "CSRF" in response.get_json()["error"]
    response = coordinator.client.post("/bolivia/new", data={"players": "Ana\nBeto"})
    assert response.status_code == 400


def test_setup_refusals_name_the_section(coordinator: Coordinator) -> None:
    cases = [
        ({"players": "Ana"}, "Jugadores: juegan de 2 a 6"),
        ({"players": "\n".join("ABCDEFG")}, "Jugadores: juegan de 2 a 6"),
        ({"players": "Ana\nAna"}, "nombre repetido"),
        ({"partners": "on", "teams": "Ana, Beto\nCaro"}, "Variantes: en parejas"),
        ({"partners": "on", "teams": "Ana, Beto"}, "al menos dos equipos"),
        ({"players": "Ana\nBeto", "opt_empate": "a ver"}, "vale compartido o desempate"),
    ]
    for form, text in cases:
        response = coordinator.form("/bolivia/new", form)
        assert response.status_code == 400, form
        assert text in response.text, (form, response.text)
    assert coordinator.get("/").text.count("/bolivia/") == 1  # only the new-game button: nothing was created


def test_a_game_starts_with_its_variant_and_options(coordinator: Coordinator) -> None:
    gid = new_game(
        coordinator,
        "Ana\nBeto\nCaro",
        name="Viernes",
        three_hatches="on",
        generala="on",
        options_form="1",
        opt_escalera_as_alto="on",
        opt_empate="desempate",
    )
    current = state(coordinator, gid)
    assert current["name"] == "Viernes" and current["phase"] == "attempt"
    game = current["game"]
    assert game["players"] == ["Ana", "Beto", "Caro"] and game["variant"] == ["three_hatches", "generala"]
    assert game["options"]["escalera_as_alto"] is True and game["options"]["empate"] == "desempate"
    assert game["options"]["grande_como_poker"] is False  # the form showed it unticked
    assert all(len(side["hatches"]) == 3 for side in game["sides"])
    assert current["legal"]["player"] == "Ana" and current["legal"]["roll"]["allowed"]
    home = coordinator.get("/").text
    assert f'href="/bolivia/{gid}"' in home and f'href="/bolivia/{gid}/tv"' in home


def test_pages_render_and_unknown_games_are_404(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    page = coordinator.get(f"/bolivia/{gid}")
    assert page.status_code == 200 and 'id="bolivia"' in page.text and "bolivia.js" in page.text
    assert '"Anotar"' in page.text  # the labels the script draws
    assert coordinator.get(f"/bolivia/{gid}/tv").status_code == 200
    assert coordinator.get("/bolivia/999/state.json").status_code == 404
    assert coordinator.post("/bolivia/999/manual").status_code == 404
    assert coordinator.get(f"/bolivia/{gid}/photo/nada.jpg").status_code == 404
    assert coordinator.get(f"/bolivia/{gid}/photo/..%2Fsecret").status_code == 404
    dudo = coordinator.form("/dudo/new", {"players": "Ana\nBeto", "opener": "Ana"})
    dudo_id = int(dudo.headers["Location"].rsplit("/", 1)[1])
    assert coordinator.get(f"/bolivia/{dudo_id}/state.json").status_code == 404


def test_english_labels(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    page = coordinator.get(f"/bolivia/{gid}?lang=en").text
    assert '"Anotar": "Score"' in page and "Undo" in page


# ------------------------------------------------------------------ a turn by hand


def test_a_classic_turn_by_hand(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    current = state(coordinator, gid)
    assert current["legal"]["declare"] == [] and current["roll"] is None
    current = roll_by_hand(coordinator, gid, [1, 1, 1, 3, 2])
    assert current["roll"]["dice"] == [1, 1, 1, 3, 2] and current["roll"]["source"] == "manual"
    assert current["attempt"]["rolls"] == 1 and current["reading"] is None
    # After the first roll the category must be declared: only legal ones are offered, and no score yet.
    assert len(current["legal"]["declare"]) == 10 and current["legal"]["score"] == []
    assert not current["legal"]["roll"]["allowed"] and current["legal"]["roll"]["article"] == HOW
    current = act(coordinator, gid, {"event": "declare", "category": "poker"})
    assert current["attempt"]["declared"] == "poker"
    assert current["legal"]["score"] == [
        {
            "category": "poker",
            "dice": [1, 1, 1, 3, 2],
            "roll": 1,
            "points": 0,
            "mark": "X",
            "made": False,
            "grande": False,
            "instant_win": False,
            "label": "póker",
        }
    ]
    act(coordinator, gid, {"event": "set_aside", "positions": [1, 2, 3]})
    response = coordinator.post(f"/bolivia/{gid}/manual")
    reading = response.get_json()["reading"]
    kept = [d for d in reading["dice"] if d["kept"] is not None]
    assert [(d["slot"], d["face"], d["confirmed"]) for d in kept] == [(1, 1, True), (2, 1, True), (3, 1, True)]
    assert "2 dados sin cara: tóquelos" in reading["proposal"]["blockers"][0]
    current = set_faces(coordinator, gid, [1, 1, 1, 1, 4])
    current = coordinator.post(f"/bolivia/{gid}/confirm", {"seq": current["seq"]}).get_json()
    assert current["roll"]["dice"] == [1, 1, 1, 1, 4] and current["roll"]["number"] == 2
    current = act(coordinator, gid, {"event": "score"})
    assert cell(current, 0, "poker") == {"points": 40, "mark": "O"}
    assert current["game"]["sides"][0]["total"] == 40
    assert current["last_score"]["player"] == "Ana" and current["last_score"]["mark"] == "O"
    assert current["attempt"]["player"] == "Beto" and current["attempt"]["rolls"] == 0
    assert current["history"][-1] == "Ana anota"


def test_marks_of_the_pizarra_are_the_engines(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    turn(coordinator, gid, "escalera", [2, 3, 4, 5, 6])  # first roll: 25, "5"
    turn(coordinator, gid, "full", [1, 2, 3, 4, 6], [6, 6, 3, 3, 3])  # after a re-roll: 30, "O"
    turn(coordinator, gid, "grande", [6, 6, 6, 6, 1], [6, 6, 6, 6, 6], aside=[[1, 2, 3, 4]])  # "$" 50
    current = turn(coordinator, gid, "senas", [1, 2, 3, 4, 5])  # no six: X
    assert cell(current, 0, "escalera") == {"points": 25, "mark": "5"}
    assert cell(current, 1, "full") == {"points": 30, "mark": "O"}
    assert cell(current, 0, "grande") == {"points": 50, "mark": "$"}
    assert cell(current, 1, "senas") == {"points": 0, "mark": "X"}
    ranking = current["game"]["result"]["ranking"]
    assert ranking[0]["side"] == "Ana" and ranking[0]["place"] == 1 and ranking[0]["total"] == 75


def test_after_the_third_roll_the_score_is_written_at_once(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    roll_by_hand(coordinator, gid, [2, 2, 1, 3, 4])
    act(coordinator, gid, {"event": "declare", "category": "tontos"})
    act(coordinator, gid, {"event": "set_aside", "positions": [1, 2]})
    roll_by_hand(coordinator, gid, [2, 2, 2, 5, 6])
    act(coordinator, gid, {"event": "set_aside", "positions": [1, 2, 3]})
    current = roll_by_hand(coordinator, gid, [2, 2, 2, 2, 1])
    assert cell(current, 0, "tontos") == {"points": 8, "mark": "8"}
    assert current["attempt"]["player"] == "Beto"
    line = json.loads(coordinator.client.application.extensions["cacho.store"].lines(gid)[-1])
    assert line["event"] == "score" and line["by"] == "kiosco"


def test_only_open_categories_are_offered_and_a_filled_one_is_refused(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    turn(coordinator, gid, "balas", [1, 2, 3, 4, 5])
    turn(coordinator, gid, "balas", [1, 2, 3, 4, 5])
    current = roll_by_hand(coordinator, gid, [1, 1, 2, 2, 3])
    assert "balas" not in current["legal"]["declare"] and len(current["legal"]["declare"]) == 9
    refused = act(coordinator, gid, {"event": "declare", "category": "balas"}, 409)
    assert refused["article"] == CROSS and "Ana ya anotó balas (1)" in refused["error"]


def test_rule_refusals_carry_the_section(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    refused = act(coordinator, gid, {"event": "declare", "category": "full"}, 409)
    assert refused["article"] == HOW and "primero tire" in refused["error"]
    refused = act(coordinator, gid, {"event": "score"}, 409)
    assert "aún no tiró" in refused["error"]
    refused = act(coordinator, gid, {"event": "declare", "player": "Beto", "category": "full"}, 409)
    assert "no es el turno de Beto" in refused["error"]
    refused = act(coordinator, gid, {"event": "pick", "player": "Ana"}, 409)
    assert refused["article"] == "Variantes: en parejas"
    refused = act(coordinator, gid, {"event": "hatch", "hatch": 2}, 409)
    assert refused["article"] == "Variantes: tres cruces"
    roll_by_hand(coordinator, gid, [5, 5, 5, 2, 3])
    refused = act(coordinator, gid, {"event": "set_aside", "positions": [1, 2, 3]}, 409)
    assert "debe declarar la categoría antes de apartar" in refused["error"]
    refused = coordinator.post(f"/bolivia/{gid}/manual")
    assert refused.status_code == 409 and refused.get_json()["article"] == HOW
    act(coordinator, gid, {"event": "declare", "category": "quinas"})
    refused = act(coordinator, gid, {"event": "set_aside", "positions": [1, 2, 3, 4, 5]}, 409)
    assert "no queda nada que tirar" in refused["error"]
    refused = act(coordinator, gid, {"event": "set_aside", "positions": [7]}, 409)
    assert refused["article"] == "Material"


def test_malformed_requests_are_400(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    assert act(coordinator, gid, {"event": "roll", "dice": [1, 2, 3, 4, 5]}, 400)["error"].startswith("la acción")
    assert act(coordinator, gid, {"event": "bid"}, 400)
    assert "categoría desconocida" in act(coordinator, gid, {"event": "declare", "category": "x"}, 400)["error"]
    assert act(coordinator, gid, {"event": "declare"}, 400)["error"] == "al evento 'declare' le falta category"
    assert act(coordinator, gid, {"event": "score", "seq": "1"}, 400)["error"].startswith("'seq'")
    response = coordinator.client.post(
        f"/bolivia/{gid}/action",
        data="[1]",
        content_type="application/json",
        headers={"X-CSRF-Token": coordinator.token},
    )
    assert response.status_code == 400 and response.get_json()["error"] == "se esperaba un objeto JSON"


def test_a_stale_page_is_refused(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    seq = state(coordinator, gid)["seq"]
    roll_by_hand(coordinator, gid, [1, 2, 3, 4, 6])
    refused = act(coordinator, gid, {"event": "declare", "category": "full", "seq": seq}, 409)
    assert "la partida cambió" in refused["error"]


# ------------------------------------------------------------------ the reading by hand


def test_manual_reading_blockers_and_corrections(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    assert coordinator.post(f"/bolivia/{gid}/confirm").status_code == 409
    assert coordinator.post(f"/bolivia/{gid}/die", {"die": None, "face": 3}).status_code == 409
    reading = coordinator.post(f"/bolivia/{gid}/manual").get_json()["reading"]
    assert reading["source"] == "manual" and len(reading["dice"]) == 5
    refused = coordinator.post(f"/bolivia/{gid}/confirm")
    assert refused.status_code == 409 and "5 dados sin cara: tóquelos" in refused.get_json()["error"]
    first = reading["dice"][0]["id"]
    for bad in (0, 7, "3", True):
        assert coordinator.post(f"/bolivia/{gid}/die", {"die": first, "face": bad}).status_code == 400
    assert coordinator.post(f"/bolivia/{gid}/die", {"die": "nope", "face": 3}).status_code == 400
    assert coordinator.post(f"/bolivia/{gid}/die", {"die": 5, "face": 3}).status_code == 400
    refused = coordinator.post(f"/bolivia/{gid}/die", {"die": None, "face": 3})
    assert refused.status_code == 400 and "ya hay cinco dados" in refused.get_json()["error"]
    # Remove one, add one back: a sixth is refused, the fifth is welcome.
    after = coordinator.post(f"/bolivia/{gid}/die", {"die": first, "face": None}).get_json()
    assert len(after["reading"]["dice"]) == 4
    assert "la lectura tiene 4" in after["reading"]["proposal"]["blockers"][0]
    after = coordinator.post(f"/bolivia/{gid}/die", {"die": None, "face": 6}).get_json()
    assert len(after["reading"]["dice"]) == 5
    current = set_faces(coordinator, gid, [2, 2, 4, 4, 6])
    assert current["reading"]["proposal"]["ok"] and current["reading"]["proposal"]["dice"] == [2, 2, 4, 4, 6]
    corrections = [a for a in coordinator.client.application.extensions["cacho.store"].audit_trail(gid)]
    assert corrections and all(a["kind"] == "correction" and "read" in a and "set" in a for a in corrections)
    current = coordinator.post(f"/bolivia/{gid}/confirm").get_json()
    line = json.loads(coordinator.client.application.extensions["cacho.store"].lines(gid)[-1])
    assert line["event"] == "roll" and line["source"] == "manual" and len(line["corrections"]) == 6


def test_the_cancel_drops_the_reading(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    coordinator.post(f"/bolivia/{gid}/manual")
    assert state(coordinator, gid)["reading"] is not None
    current = coordinator.post(f"/bolivia/{gid}/cancel").get_json()
    assert current["reading"] is None and current["seq"] == 1


def test_a_set_aside_die_that_changed_is_named(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    roll_by_hand(coordinator, gid, [5, 2, 5, 1, 5])
    act(coordinator, gid, {"event": "declare", "category": "quinas"})
    act(coordinator, gid, {"event": "set_aside", "positions": [1, 3, 5]})
    reading = coordinator.post(f"/bolivia/{gid}/manual").get_json()["reading"]
    kept_third = next(d for d in reading["dice"] if d["slot"] == 3)
    coordinator.post(f"/bolivia/{gid}/die", {"die": kept_third["id"], "face": 6})
    current = set_faces(coordinator, gid, [5, 4, 6, 4, 5])
    plan = current["reading"]["proposal"]
    assert not plan["ok"] and plan["moved"] == [3]
    assert any("el dado 3 estaba apartado con 5 y ahora muestra 6: se movió" in b for b in plan["blockers"])
    refused = coordinator.post(f"/bolivia/{gid}/confirm")
    assert refused.status_code == 409 and "el dado 3" in refused.get_json()["error"]
    current = set_faces(coordinator, gid, [5, 4, 5, 4, 5])
    assert current["reading"]["proposal"]["ok"]
    current = coordinator.post(f"/bolivia/{gid}/confirm").get_json()
    assert current["roll"]["dice"] == [5, 4, 5, 4, 5]


def test_without_a_camera_the_read_is_refused(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    refused = coordinator.post(f"/bolivia/{gid}/read")
    assert refused.status_code == 409 and "Sin cámara" in refused.get_json()["error"]
    assert state(coordinator, gid)["can_read"] is False


# ------------------------------------------------------------------ undo


def test_undo_takes_back_the_last_action_and_is_logged(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    assert state(coordinator, gid)["can_undo"] is False
    refused = coordinator.post(f"/bolivia/{gid}/undo")
    assert refused.status_code == 409 and "nada que deshacer" in refused.get_json()["error"]
    roll_by_hand(coordinator, gid, [3, 3, 3, 1, 2])
    act(coordinator, gid, {"event": "declare", "category": "trenes"})
    current = coordinator.post(f"/bolivia/{gid}/undo").get_json()
    assert current["attempt"]["declared"] is None and current["attempt"]["rolls"] == 1 and current["can_undo"]
    current = act(coordinator, gid, {"event": "declare", "category": "full"})
    current = act(coordinator, gid, {"event": "score"})
    assert cell(current, 0, "full") == {"points": 0, "mark": "X"}
    current = coordinator.post(f"/bolivia/{gid}/undo").get_json()
    assert cell(current, 0, "full") is None and current["attempt"]["player"] == "Ana"
    lines = [json.loads(line) for line in coordinator.client.application.extensions["cacho.store"].lines(gid)]
    assert [line["event"] for line in lines].count("undo") == 2
    assert current["history"][-1] == "Deshecho"
    refused = coordinator.post(f"/bolivia/{gid}/undo", {"seq": 2})
    assert refused.status_code == 409 and "cambió" in refused.get_json()["error"]


# ------------------------------------------------------------------ the end, the variants


def test_a_grande_de_mano_ends_the_game(coordinator: Coordinator) -> None:
    gid = new_game(coordinator, "Ana\nBeto\nCaro")
    turn(coordinator, gid, "senas", [6, 6, 1, 2, 3])
    current = roll_by_hand(coordinator, gid, [4, 4, 4, 4, 4])
    act(coordinator, gid, {"event": "declare", "category": "grande"})
    preview = state(coordinator, gid)["legal"]["score"][0]
    assert preview["instant_win"] is True and preview["mark"] == "$"
    current = act(coordinator, gid, {"event": "score"})
    assert current["phase"] == "over" and current["legal"] is None
    result = current["game"]["result"]
    assert result["finished"] and result["winners"] == ["Beto"]
    assert result["instant_win"] == {"side": "Beto", "player": "Beto", "dice": [4, 4, 4, 4, 4]}
    refused = coordinator.post(f"/bolivia/{gid}/manual")
    assert refused.status_code == 409 and "la partida terminó" in refused.get_json()["error"]
    assert "la partida terminó" in act(coordinator, gid, {"event": "score"}, 409)["error"]
    tv = coordinator.client.application.test_client().get(f"/bolivia/{gid}/state.json").get_json()
    assert tv["advice"] is None and tv["game"]["result"]["instant_win"]["player"] == "Beto"
    # The undo reopens it.
    current = coordinator.post(f"/bolivia/{gid}/undo").get_json()
    assert current["phase"] == "attempt" and current["game"]["result"]["instant_win"] is None


def test_generala_scores_a_chosen_category(coordinator: Coordinator) -> None:
    gid = new_game(coordinator, generala="on")
    current = roll_by_hand(coordinator, gid, [2, 2, 3, 3, 3])
    legal = current["legal"]
    assert legal["declare"] == []
    offered = {s["category"]: (s["points"], s["mark"]) for s in legal["score"]}
    assert offered["full"] == (35, "5") and offered["trenes"] == (9, "9") and offered["escalera"] == (0, "X")
    refused = act(coordinator, gid, {"event": "declare", "category": "full"}, 409)
    assert refused["article"] == "Variantes: Generala"
    assert "falta cuál" in act(coordinator, gid, {"event": "score"}, 409)["error"]
    current = act(coordinator, gid, {"event": "score", "category": "full"})
    assert cell(current, 0, "full") == {"points": 35, "mark": "5"}


def test_three_hatches_the_score_waits_for_its_hatch(coordinator: Coordinator) -> None:
    gid = new_game(coordinator, three_hatches="on")
    current = turn(coordinator, gid, "poker", [2, 2, 2, 2, 5])
    assert current["phase"] == "hatch"
    assert current["last_score"] is None  # nothing is written before its pizarra is chosen
    legal = current["legal"]
    assert legal["pending"]["mark"] == "5" and legal["pending"]["points"] == 45
    assert [o["detail"] for o in legal["hatch"] if o["allowed"]] == ["1", "2", "3"]
    assert act(coordinator, gid, {"event": "hatch", "hatch": 4}, 409)["article"] == "Variantes: tres cruces"
    current = act(coordinator, gid, {"event": "hatch", "hatch": 3})
    assert cell(current, 0, "poker", hatch=2) == {"points": 45, "mark": "5"}
    assert current["last_score"]["points"] == 45 and current["last_score"]["player"] == "Ana"
    assert current["attempt"]["player"] == "Beto"


def test_partners_pick_whose_roll_is_scored(coordinator: Coordinator) -> None:
    gid = new_game(coordinator, players="", partners="on", teams="Ana, Beto\nCaro; Dani")
    current = state(coordinator, gid)
    assert [s["name"] for s in current["game"]["sides"]] == ["Ana y Beto", "Caro y Dani"]
    turn(coordinator, gid, "cuadras", [4, 4, 1, 2, 3])
    current = turn(coordinator, gid, "escalera", [1, 2, 3, 4, 5])
    assert current["phase"] == "pick"
    candidates = {c["member"]: (c["category"], c["points"]) for c in current["legal"]["candidates"]}
    assert candidates == {"Ana": ("cuadras", 8), "Beto": ("escalera", 25)}
    assert act(coordinator, gid, {"event": "pick", "player": "Caro"}, 409)["article"] == "Variantes: en parejas"
    current = act(coordinator, gid, {"event": "pick", "player": "Beto"})
    assert cell(current, 0, "escalera") == {"points": 25, "mark": "5"} and cell(current, 0, "cuadras") is None
    assert current["attempt"]["player"] == "Caro"
    assert current["last_score"]["player"] == "Beto" and current["last_score"]["category"] == "escalera"


# ------------------------------------------------------------------ the coaching helper


def test_advice_on_demand_and_on_the_tv(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    assert coordinator.get(f"/bolivia/{gid}/advice.json").get_json() == {"advice": None}
    roll_by_hand(coordinator, gid, [6, 6, 6, 2, 1])
    advice = coordinator.get(f"/bolivia/{gid}/advice.json").get_json()["advice"]
    assert advice["player"] == "Ana" and advice["roll"] == 1 and len(advice["items"]) == 10
    expected = [item["expected"] for item in advice["items"]]
    assert expected == sorted(expected, reverse=True)
    senas = next(i for i in advice["items"] if i["category"] == "senas")
    assert senas["keep"] == [6, 6, 6] and senas["action"] == "roll"
    act(coordinator, gid, {"event": "declare", "category": "senas"})
    tv = coordinator.client.application.test_client().get(f"/bolivia/{gid}/state.json").get_json()
    assert tv["advice"]["best"] == "senas" and tv["advice"]["items"][0]["category"] == "senas"


# ------------------------------------------------------------------ persistence, live updates, export and import


def test_every_change_is_published_live(app: Flask, coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    inbox = app.extensions["cacho.bus"].subscribe()
    coordinator.post(f"/bolivia/{gid}/manual")
    message = inbox.get(timeout=2)
    assert message is not None and message.topic == f"table:{gid}"


def test_the_game_and_its_reading_survive_a_restart(tmp_path: Path) -> None:
    first = make_app(tmp_path)
    co = become_coordinator(first.test_client())
    gid = new_game(co)
    roll_by_hand(co, gid, [1, 2, 3, 4, 5])
    act(co, gid, {"event": "declare", "category": "escalera"})
    co.post(f"/bolivia/{gid}/manual")
    first.extensions["cacho.camera"].close()
    again = make_app(tmp_path)
    try:
        co2 = become_coordinator(again.test_client())
        current = state(co2, gid)
        assert current["attempt"]["declared"] == "escalera" and current["reading"]["source"] == "manual"
    finally:
        again.extensions["cacho.camera"].close()


def test_export_and_import_round_trip(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    turn(coordinator, gid, "full", [3, 3, 5, 5, 5])
    roll_by_hand(coordinator, gid, [1, 1, 2, 2, 2])
    coordinator.post(f"/bolivia/{gid}/undo")
    exported = coordinator.get(f"/bolivia/{gid}/export.jsonl")
    assert exported.status_code == 200 and exported.mimetype == "application/jsonl"
    assert 'filename="cacho-boliviano-' in exported.headers["Content-Disposition"]
    text = exported.text
    result = replay_lines(text.splitlines())  # what `cacho bolivia replay` reads
    assert result.error is None and result.game is not None and result.game.turns_played == 1
    upload = {"name": "Copia", "log": (io.BytesIO(text.encode()), "partida.jsonl"), "csrf_token": coordinator.token}
    response = coordinator.client.post("/bolivia/import", data=upload, content_type="multipart/form-data")
    assert response.status_code == 302
    copy = int(response.headers["Location"].rsplit("/", 1)[1])
    original, imported = state(coordinator, gid), state(coordinator, copy)
    assert imported["game"] == original["game"] and imported["name"] == "Copia"
    assert coordinator.client.application.extensions["cacho.store"].audit_trail(copy)[-1]["kind"] == "import"


def test_import_refuses_a_log_that_does_not_replay(coordinator: Coordinator) -> None:
    bad = '{"event": "start", "players": ["Ana", "Beto"]}\n{"event": "score", "player": "Ana"}\n'
    response = coordinator.form("/bolivia/import", {"text": bad})
    assert response.status_code == 400 and "línea 2 (Cómo se juega): aún no tiró" in response.text
    assert coordinator.form("/bolivia/import", {"text": ""}).status_code == 400
    assert coordinator.form("/bolivia/import", {"text": "{nope"}).status_code == 400
    dudo_log = '{"event": "start", "players": ["Ana", "Beto"], "opener": "Ana"}'
    assert coordinator.form("/bolivia/import", {"text": dudo_log}).status_code == 400
    demo = Path("kiosk/demo/bolivia_partida.jsonl").read_text(encoding="utf-8")
    response = coordinator.form("/bolivia/import", {"text": demo, "name": "Demo"})
    assert response.status_code == 302
    gid = int(response.headers["Location"].rsplit("/", 1)[1])
    current = state(coordinator, gid)
    assert current["phase"] == "over" and current["game"]["result"]["winners"] == ["Caro"]
