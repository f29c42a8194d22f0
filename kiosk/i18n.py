"""Spanish first, with an English switch: the Spanish text is the key; English where it is written."""

from __future__ import annotations

from flask import g, has_request_context, request

from kiosk.cards.texts import EN as CARDS_EN

LANGS = ("es", "en")

EN: dict[str, str] = {
    "Mesas": "Tables",
    "Nueva mesa de Dudo": "New Dudo table",
    "Nueva partida de Cacho boliviano": "New Bolivian Cacho game",
    "Jugadores en orden horario": "Players, clockwise",
    "Uno por línea": "One per line",
    "Quién parte": "Who opens",
    "Sorteo": "Roll-off",
    "Sortear con un dado": "Roll one die each",
    "Parte": "Opens:",
    "Empate: relanzan": "Tie: throwing again:",
    "Hacen falta al menos 2 jugadores": "At least 2 players are needed",
    "Falta terminar el sorteo": "The roll-off is not finished",
    "Empezar": "Start",
    "Apostar": "Bid",
    "Dudo": "Dudo (doubt)",
    "Calzo": "Calzo (exact)",
    "Paso": "Paso (pass)",
    "Deshacer": "Undo",
    "Levanten los cachos": "Lift the cups",
    "Leer los dados": "Read the dice",
    "Leer de nuevo": "Read again",
    "Entrar a mano": "Enter by hand",
    "Confirmar y aplicar": "Confirm and apply",
    "Dados en juego": "Dice in play",
    "Cuenta": "Count",
    "Le toca a": "To act",
    "Apuesta": "Bid",
    "Campeón de la mesa": "Table champion",
    "Eliminado": "Eliminated",
    "Cámara": "Camera",
    "Calibrar": "Calibrate",
    "Espectadores": "Spectators",
    "Exportar": "Export",
    "Importar": "Import",
    "Salir": "Log out",
    "Entrar": "Log in",
    "PIN del coordinador": "Coordinator's PIN",
    "Repetir el PIN": "Repeat the PIN",
    "Fijar el PIN": "Set the PIN",
    "El PIN son de 4 a 8 cifras": "The PIN is 4 to 8 digits",
    "Los dos PIN no coinciden": "The two PINs differ",
    "PIN incorrecto": "Wrong PIN",
    "Demasiados intentos: espere {s} s": "Too many tries: wait {s} s",
    "Hace falta el PIN del coordinador": "The coordinator's PIN is needed",
    "Falta fijar el PIN del coordinador": "The coordinator's PIN is not set yet",
    "Formulario vencido o ajeno (CSRF): recargue la página e inténtelo de nuevo": (
        "Expired or foreign form (CSRF): reload the page and try again"
    ),
    "El kiosco no responde: revise que esté encendido y vuelva a intentarlo": (
        "The kiosk does not answer: check that it is on and try again"
    ),
    "Sin conexión con el kiosco": "No connection to the kiosk",
    "Reloj de turno": "Turn timer",
    "Iniciar": "Start",
    "Pausar": "Pause",
    "Reiniciar": "Reset",
    "¡Tiempo!": "Time!",
    "Sonido: sí": "Sound: on",
    "Sonido: no": "Sound: off",
    "Probabilidad de que la apuesta sea cierta": "Chance the bid is true",
    "Último fallo": "Last ruling",
    "Dudosos: tóquelos para confirmar o corregir": "Doubtful: tap to confirm or correct",
    "Cantidad": "Quantity",
    "Pinta": "Face",
    "Opciones de la casa (art. 11)": "House options (art. 11)",
    "Marcadores vistos": "Markers seen",
    "Zonas de asiento": "Seat zones",
    "Guardar": "Save",
    "Volver": "Back",
    "Sin cámara": "No camera",
    "Fallo": "Ruling",
    "Historial": "History",
    "Registro (JSONL)": "Log (JSONL)",
    "Desestimar y abrir de nuevo": "Dismiss and open anew",
    "quitar": "remove",
    "añadir dado": "add die",
    "Esperando la lectura…": "Waiting for the reading…",
    "Lectura": "Reading",
    "Mesa": "Table",
    "Partida": "Game",
    "Jugador": "Player",
    "Dados": "Dice",
    "Mano": "Hand",
    "Coordinador": "Coordinator",
    # Cacho boliviano (kiosk/bolivia)
    "Variante": "Variant",
    "Sin marcar ninguna: la clásica, una pizarra por jugador.": "None ticked: the classic game, one pizarra each.",
    "Tres pizarras": "Three cross hatches",
    "Parejas": "Partners",
    "Jugadores en orden de turno": "Players in turn order",
    "Equipos": "Teams",
    "uno por línea, nombres separados por comas": "one per line, names separated by commas",
    "Opciones de la casa": "House options",
    "Tirada": "Roll",
    "de": "of",
    "Leer la tirada": "Read the roll",
    "Confirmar tirada": "Confirm the roll",
    "Descartar lectura": "Discard the reading",
    "Declarar": "Declare",
    "Cambiar de categoría": "Change the category",
    "Apartar": "Set aside",
    "Anotar": "Score",
    "¿A qué voy?": "What should I go for?",
    "Ocultar consejo": "Hide the advice",
    "Elegir la tirada del equipo": "Pick the team's roll",
    "Elegir la pizarra": "Choose the cross hatch",
    "Pizarra": "Cross hatch",
    "vale": "worth",
    "Total": "Total",
    "Va ganando": "Leading",
    "Ganador": "Winner",
    "Ganadores": "Winners",
    "Empate: hay que desempatar": "Tie: a play-off is needed",
    "¡Grande de mano!": "Grande de mano!",
    "Grande de mano": "Grande de mano (five of a kind, first roll)",
    "Gana": "Wins",
    "Toque los dados para apartarlos": "Tap the dice to set them aside",
    "apartado": "set aside",
    "¿Qué cara muestra?": "Which face is up?",
    "esperado": "expected",
    "aparte": "keep",
    "y tire": "and roll",
    "anote ya": "score now",
    "ninguno": "none",
    "Fin de la partida": "Game over",
    "Paga": "Pays",
    "puntos": "points",
    "declaró": "declared",
    "Aún no tira": "Not rolled yet",
    "Consejo": "Advice",
    "Última anotación": "Last score",
    "ya apartado: no vuelve al cacho": "already set aside: it stays out of the cup",
    "Comprobar marcadores": "Check the seat markers",
    "Sin apuesta todavía": "No bid yet",
    "Levanten los cachos: ": "Lift the cups: ",
    "Dados en juego: ": "Dice in play: ",
    "Le toca a ": "To act: ",
    "Eliminado: ": "Eliminated: ",
    "Cuenta: ": "Count: ",
    "cancelar": "cancel",
    "+ dado": "+ die",
    "Buscar marcadores": "Find the markers",
    "Asientos": "Seats",
    "Asiento": "Seat",
    "Borrar zona": "Clear zone",
    "eventos": "events",
    "Todavía no hay mesas.": "No tables yet.",
    "No existe esa página": "No such page",
    "La cámara no da imagen": "The camera gives no image",
    "Todavía no se buscaron marcadores": "No marker search yet",
    "Cada uno lanza un dado; el más alto parte; los empatados relanzan.": (
        "Each throws one die; the highest opens; the tied throw again."
    ),
    "Solo el coordinador lo conoce: sin él, la mesa solo se mira.": (
        "Only the coordinator knows it: without it, the table can only be watched."
    ),
    "Sin marcadores: elija el asiento y toque las esquinas de su zona sobre la imagen.": (
        "Without markers: choose the seat and tap the corners of its zone on the picture."
    ),
}
for _key, _text in CARDS_EN.items():  # the card games' texts; the kiosk's own never overridden
    EN.setdefault(_key, _text)


def lang() -> str:
    """The page's language: ?lang=, then the cookie, then Spanish."""
    if not has_request_context():
        return "es"
    cached = g.get("lang")
    if isinstance(cached, str):
        return cached
    chosen = request.args.get("lang") or request.cookies.get("lang") or "es"
    g.lang = chosen if chosen in LANGS else "es"
    return str(g.lang)


def t(text: str) -> str:
    """The text in the page's language (the Spanish is the key)."""
    if lang() == "en":
        return EN.get(text, text)
    return text
