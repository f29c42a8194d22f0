"""Spanish first, with an English switch: the Spanish text is the key; English where it is written."""

from __future__ import annotations

from flask import g, has_request_context, request

from kiosk.cards.texts import EN as CARDS_EN
from kiosk.house_options import EN as HOUSE_EN
from kiosk.teach_texts import EN as TEACH_EN
from vision import words

LANGS = ("es", "en")

EN: dict[str, str] = {
    "Buscando marcadores…": "Looking for markers…",
    "sin jugador": "no player",
    "FALTAN": "MISSING",
    "están todos": "all there",
    "nadir: el centro de la imagen (hacen falta 2 marcadores que lo digan)": (
        "nadir: the centre of the image (2 markers are needed to tell it)"
    ),
    "cámara inclinada": "camera tilted",
    "altura": "height",
    "lente de": "lens of",
    "nadir medido con": "nadir measured with",
    "marcadores": "markers",
    "parte": "opens",
    "¡Dudo!": "Dudo!",
    "¡Calzo!": "Calzo!",
    "¡Dudo del paso!": "Dudo on the paso!",
    "mano a mano": "heads-up",
    "obligo": "obligo (forced)",
    "ases no son comodín": "aces not wild",
    "¿qué dice?": "what do you say?",
    "lectura de los dados": "the dice as read",
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
    "Paso de": "Paso (pass) by",
    "dado nuevo": "new die",
    "sin lectura": "not read",
    "leído": "read as",
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
    "El PIN tiene de 4 a 8 cifras": "The PIN is 4 to 8 digits",
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
    "Importar un registro (JSONL)": "Import a log (JSONL)",
    "evento": "event",
    "mesa": "table",
    "Cámara: error": "Camera: error",
    "Cámara…": "Camera…",
    "lector": "reader",
    "exacta (calzo)": "exact (calzo)",
    "ases comodín": "aces wild",
    "ases no comodín": "aces not wild",
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
    "Foto de la lectura": "Photo of the reading",
    "Declarar": "Declare",
    "Cambiar de categoría": "Change the category",
    "Tocar cada dado": "Tap each die",
    "Al cambiar de categoría se vuelven a tirar los cinco dados": (
        "Changing the category means rolling all five dice again"
    ),
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
    "1 dado dudoso no puede cambiar el fallo": "1 doubtful die cannot change the ruling",
    "dados dudosos no pueden cambiar el fallo": "doubtful dice cannot change the ruling",
    "quedan como se leyeron": "left as read",
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
    # The championship (kiosk/championship)
    "Campeonato": "Championship",
    "Campeón del campeonato": "Championship champion",
    "Inscripción": "Registration",
    "Inscribir": "Register",
    "Inscritos: {n}": "Registered: {n}",
    "Jugadores: uno por línea, «Nombre, Club»": "Players: one per line, “Name, Club”",
    "Escriba un jugador por línea: Nombre, Club": "Write one player per line: Name, Club",
    "Jugador quitado": "Player removed",
    "Sorteo de mesas (art. 3)": "Draw of tables (art. 3)",
    "Semilla": "Seed",
    "semilla": "seed",
    "Semilla del sorteo": "Seed of the draw",
    "Jugadores por mesa, hasta": "Players per table, at most",
    "mesas de hasta": "tables of at most",
    "Sortear la ronda 1": "Draw round 1",
    "Sortear de nuevo la ronda 1": "Draw round 1 again",
    "Sortear la ronda siguiente": "Draw the next round",
    "Sorteo de la ronda 1 con la semilla {seed}: {n} mesas": "Round 1 drawn with the seed {seed}: {n} tables",
    "Sorteo de la ronda {r} con la semilla {seed}: {n} mesas": "Round {r} drawn with the seed {seed}: {n} tables",
    "Avanzan por mesa": "Advance per table",
    "Mesa final con hasta": "Final table with at most",
    "Opciones guardadas": "Options saved",
    "Cualquiera puede repetir el sorteo": "Anyone can repeat the draw",
    "(los nombres en el orden de la lista)": "(the names in the list's order)",
    "Hojas de mesa": "Table sheets",
    "Orden de los asientos en sentido horario (art. 3). Parte quien saque el dado más alto.": (
        "Seats in clockwise order (art. 3). Whoever throws the highest die opens."
    ),
    "Mesas en vivo": "Live tables",
    "Ronda": "Round",
    "Clasificación": "Standings",
    "Club": "Club",
    "Lugar": "Place",
    "en juego": "playing",
    "descalificado": "disqualified",
    "Eliminados": "Eliminated",
    "Lee con": "Reads with",
    "el dado, de cerca": "the die, close up",
    "todavía sin pruebas de esta mesa": "no evidence from this table yet",
    "dados de prueba de esta mesa": "dice of evidence from this table",
    "acepta sin contar los puntos desde": "accepts without counting the pips from",
    "sin contar los puntos todavía pregunta: hacen falta": "without counting the pips it still asks: it needs",
    "pruebas sin error": "pieces of evidence without an error",
    "dados de prueba": "dice of evidence",
    "Lector del campeonato": "The championship's reader",
    "dados de": "dice from",
    "mesas": "tables",
    "dado": "die",
    "dados": "dice",
    "desde": "since",
    "desde las": "since",
    "desde el": "since",
    "Bienvenido a Cacho Companion": "Welcome to Cacho Companion",
    "Primero, elija el PIN del coordinador: con él se juega y se corrige; sin él las mesas solo se miran.": (
        "First, choose the coordinator's PIN: with it the tables are played and corrected; without it they are only"
        " watched."
    ),
    "Elegir el PIN del coordinador": "Choose the coordinator's PIN",
    "Sin el PIN, las mesas solo se miran.": "Without the PIN, the tables are only watched.",
    "Para empezar: elija el juego de la mesa. Con cámara, «Calibrar» una vez y «Enseñar los dados» antes de jugar.": (
        "To begin: choose the table's game. With a camera, «Calibrate» once and «Teach the dice» before playing."
    ),
    "adaptado hoy": "adapted today",
    "adaptado el": "adapted on",
    "listo": "ready",
    "con error": "failing",
    "sin lector": "no reader",
    "Complete este campo.": "Please fill out this field.",
    "El valor debe ser al menos": "The value must be at least",
    "El valor debe ser como mucho": "The value must be at most",
    "Escriba un número entero.": "Enter a whole number.",
    "El valor no tiene la forma pedida.": "The value is not in the form asked for.",
    "Es demasiado corto.": "It is too short.",
    "Ir a la mesa": "Go to table",
    "conectada": "linked",
    "enlace caído": "link down",
    "sin noticias": "no news",
    "Foto del fallo": "Photo of the ruling",
    "Resultado": "Result",
    "Resultado del campeonato": "Championship result",
    "Fallos (Markdown)": "Rulings (Markdown)",
    "Fallos del organizador": "The organizer's rulings",
    "Fallos del organizador (art. 11)": "The organizer's rulings (art. 11)",
    "Artículo": "Article",
    "Quién": "Who",
    "todas": "all",
    "Registrar fallo": "Record the ruling",
    "Fallo registrado": "Ruling recorded",
    "Motivo": "Reason",
    "Descalificar (art. 11)": "Disqualify (art. 11)",
    "Jugador descalificado": "Player disqualified",
    "Enlace": "Link",
    "conectado": "connected",
    "caído": "down",
    "rechazado": "refused",
    "enviados": "sent",
    "Ninguno todavía.": "None yet.",
    "Dejar el campeonato": "Leave the championship",
    "La mesa dejó el campeonato": "The table left the championship",
    "El organizador da la dirección del broker, el código, el número de mesa y su contraseña.": (
        "The organizer gives the broker's address, the code, the table's number and its password."
    ),
    "Broker (dirección:puerto)": "Broker (address:port)",
    "Código del campeonato": "Championship code",
    "Número de mesa": "Table number",
    "Mesa de Dudo de este quiosco": "This kiosk's Dudo table",
    "Usuario": "User",
    "Contraseña": "Password",
    "Unirse con esta mesa": "Join with this table",
    "Traer los jugadores del sorteo": "Fetch the players of the draw",
    "Parte (el dado más alto del sorteo de la mesa, art. 3)": "Opens (the highest die of the table's roll-off, art. 3)",
    "Sentar la mesa y unirse": "Seat the table and join",
    "Mesa {n} unida al campeonato {code}": "Table {n} joined the championship {code}",
    "No se unió al campeonato: {e}": "Did not join the championship: {e}",
    "el organizador no ha sorteado la mesa {n}": "the organizer has not drawn table {n}",
    "Por mesa": "By table",
    "En el quiosco de la mesa: Campeonato → Escanear el código QR.": (
        "On the table's kiosk: Championship → Scan the QR code."
    ),
    "Escanear el código QR de la hoja de mesa": "Scan the QR code of the table sheet",
    "no hay cámara para leer el código QR: {e}": "no camera to read the QR code: {e}",
    "la cámara no ve ningún código QR: acerque la hoja de mesa": (
        "the camera sees no QR code: bring the table sheet closer"
    ),
    "Descalificados (art. 11)": "Disqualified (art. 11)",
    "eventos en conflicto: la mesa mandó otro registro con los mismos números": (
        "events in conflict: the table sent another log with the same numbers"
    ),
    "El kiosco ya sirve {n} páginas en vivo: esta vuelve a intentarlo en {s} s": (
        "The kiosk already serves {n} live pages: this one tries again in {s} s"
    ),
}
for _key, _text in {**CARDS_EN, **TEACH_EN, **HOUSE_EN}.items():  # the card games', teaching's, house options'
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


def number(value: float, digits: int = 1) -> str:
    """A number as the page's language writes it (1,4 in Spanish, 1.4 in English)."""
    return words.number(value, digits, lang())


def count(n: int, one: str, other: str) -> str:
    """«1 dado dudoso», «3 dados dudosos» in the page's language (the Spanish forms are the keys)."""
    return words.count(n, t(one), t(other), lang())
