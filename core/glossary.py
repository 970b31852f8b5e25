"""A German-English glossary of the words people use when they ask about a company wiki.

Word translation by nearest neighbours in a multilingual sentence encoder (`core.translate`)
finds many technical terms but misses the everyday words of questions: "Eigentümer" lands
nowhere near "owner", "getestet" lands on "inet", "bestanden" on "files". Those words say
what a question asks for (the owner, the steps, the reason), so the answerer cannot find
the span without them. This glossary covers them: question nouns, verbs and adjectives of
wikis about projects, meetings, processes, tests and systems, not the vocabulary of any one
wiki (the encoder still handles the rest). Each German entry is matched by its Snowball
stem, so inflected forms ("Voraussetzungen", "Voraussetzung") share one entry; an entry
lists the English words a wiki may use for it, in several forms where English stems
differ ("owner owned owns").

Pure data and a lookup: no model, no I/O.
"""

from __future__ import annotations

from functools import lru_cache

import Stemmer

# German word(s) = English words. Written for this module from general usage; sorted by
# topic, not alphabetically.
_ENTRIES = """
# pages, documents and who is behind them
seite, seiten = page pages
dokument, dokumente, dokumentation = document documentation documented
eigentümer, besitzer, inhaber = owner owned owns
autor, verfasser = author authored
verfasst, geschrieben = written wrote authored
erstellt, angelegt = created creator
verantwortlich, verantwortliche, zuständig = responsible owner owned
gehört = belongs owned owner
zuletzt = last latest
aktualisiert, aktualisierung = updated update
geändert, änderung, änderungen = changed change changes modified
bearbeitet = edited modified
abschnitt, kapitel = section chapter
überschrift = heading title
inhalt = content contents
anhang = attachment appendix
vorlage = template
beispiel = example
entwurf, entwürfe = draft drafts design
kategorie, kategorien = category categories
kombination, kombinationen, kombiniert = combination combinations combined
person, personen = person persons people
ding, dinge = thing things
stand = status state
zusammenfassung = summary
überwachung = monitoring monitor oversight
überblick = overview
hintergrund = background
beschreibung = description described
bedeutet, bedeutung = means meaning mean indicates
steht = stands stand
abkürzung = abbreviation acronym
lesezeit = reading read
# meetings and decisions
besprechung, sitzung, treffen = meeting meetings
telefonkonferenz = call conference
teilnehmer, teilnehmende = attendees participants attended
teilgenommen, anwesend = attended participated present
tagesordnung = agenda
protokoll = minutes notes log
aktionspunkt, aktionspunkte, maßnahme = action item
aufgabe, aufgaben = task tasks
entscheidung, beschluss = decision decided
entschieden, beschlossen = decided
abstimmung, abstimmen = vote voting votes
mehrheit = majority
vorstand, beirat, gremium, ausschuss = board committee body
mitglied, mitglieder = member members
vorschlag, vorschläge = proposal proposed
vorgeschlagen = proposed suggested
besprochen, diskutiert = discussed
erwähnt = mentioned
geplant = planned scheduled
planung, planungen = planning plan plans
stattgefunden = held
# processes
prozess, verfahren, ablauf = process procedure procedures
schritt, schritte = step steps
anleitung = instructions guide
voraussetzung, voraussetzungen = preconditions prerequisites requirements
anforderung, anforderungen = requirements required
erforderlich, notwendig, benötigt, nötig = required needed necessary
verpflichtend, obligatorisch = mandatory compulsory required
optional, freiwillig = optional
empfehlung, empfohlen = recommended recommendation
diskussion, diskussionen = discussion discussions
fall, fälle = case cases
grund, gründe = reason reasons
ursache = cause caused
ziel, ziele = objective goal goals target
zweck = purpose
vorteil, vorteile = advantage benefit benefits
nachteil, nachteile = disadvantage drawback
risiko = risk
lösung = solution solved
richtlinie = policy guideline
regel, regeln = rule rules
genehmigung, genehmigt = approval approved
abgelehnt = rejected
angenommen, akzeptiert = accepted
zugewiesen = assigned
gemeldet, berichtet = reported
behoben, gelöst = fixed resolved
offen = open
geschlossen = closed
erledigt, fertig, abgeschlossen = done completed finished
veröffentlicht, veröffentlichung = published release released
freigabe, freigegeben = release released approved
beitrag, beiträge = contribution contributions contributed
änderungsantrag = request
# tests and results
test, tests, testlauf = test tests run
testfall, testfälle = test case cases
getestet, geprüft, überprüft = tested checked verified
prüfung = exam examination test check
überprüfung = check verification review
ergebnis, ergebnisse = result results
bestanden = passed pass
fehlgeschlagen, gescheitert = failed fail
erfolgreich = successful successfully
stabil, stabile, stabilen = stable
fehler = error failure bug
problem, probleme = problem issue issues
fehlerbehebung = troubleshooting
messung, gemessen = measurement measured
validierung, validiert = validation validated
zustand = state status
ruhezustand, energiesparmodus, standby = sleep suspend standby hibernate
lauf, durchlauf = run
leistungstest = performance test
# systems and hardware
hersteller, anbieter = vendor manufacturer
modell, modelle = model models
gerät, geräte = device devices
rechner, computer = computer machine
maschine, maschinen = machine machines
betriebssystem, betriebssysteme = operating system os
arbeitsspeicher = memory ram
speicher = memory storage
festplatte = disk drive
grafikkarte = graphics card
prozessor, prozessoren = processor processors cpu
bildschirm, anzeige = screen display
bild, bilder = image images picture pictures
medium, medien = medium media
tastatur = keyboard
maus = mouse
netzwerk = network
verbindung = connection
schnittstelle, schnittstellen = interface interfaces port ports
anschluss, anschlüsse = port ports connection connector
seriell, serielle = serial
treiber = driver drivers
gast = guest
plattform = platform
architektur = architecture
eigenschaft, eigenschaften = property properties
funktion, funktionen = function feature features
unterstützung, unterstützt = support supported supports
kompatibel, kompatibilität = compatible compatibility
verfügbar = available
sicherheit = security
verschlüsselung = encryption
schlüssel = key keys
schutz, geschützt = protection protected
isolierung, isoliert, isolation = isolation isolated
berechtigung, berechtigungen, zugriff = permission permissions access
benutzer, nutzer, anwender, anwenderin = user users
einstellung, einstellungen = setting settings
konfiguration, konfiguriert = configuration configured
installation, installiert = installation installed install
aktiviert, eingeschaltet = enabled activated
deaktiviert, ausgeschaltet = disabled
neustart = reboot restart
start, gestartet = boot start started
datei, dateien = file files
verzeichnis, ordner = directory folder
pfad = path
befehl = command
werkzeug, werkzeuge = tool tools
quellcode = source code
zweig = branch
paket, pakete = package packages
abhängigkeit, abhängigkeiten = dependency dependencies
bibliothek = library
ebene, schicht = layer level
ereignis, ereignisse = event events
nachricht = message
eingabe = input
ausgabe = output
wert, werte = value values
standard, standardwert = default
variable, variablen = variable variables
feld = field
typ, art = type kind
name = name
nummer = number
anzahl = number count
liste = list
tabelle = table
spalte = column
zeile = row
eintrag = entry
# people and places
entwickler = developer developers engineer engineers
gemeinschaft = community
projekt = project
unternehmen, firma = company
kunde = customer
vertrag, verträge = contract contracts agreement
standort, speicherort, ort = location place site
raum = room
webseite, website = website site web
hauptseite = main
haupt, hauptsächlich = main primary mainly
thema, themen = topic topics subject
anwendungsfall, anwendungsfälle = use case cases
# places whose English name differs from the German one
münchen = munich
köln = cologne
nürnberg = nuremberg
wien = vienna
zürich = zurich
genf = geneva
brüssel = brussels
mailand = milan
rom = rome
venedig = venice
florenz = florence
neapel = naples
prag = prague
warschau = warsaw
moskau = moscow
kopenhagen = copenhagen
lissabon = lisbon
athen = athens
den haag = hague
peking = beijing
deutschland = germany
österreich = austria
schweiz = switzerland
niederlande = netherlands
frankreich = france
spanien = spain
italien = italy
vereinigtes königreich, großbritannien, england = uk united kingdom britain england
vereinigte staaten, usa = us united states usa
# time
datum = date
termin = date
jahr = year
monat = month
woche = week
tag = day
uhrzeit = time
dauer = duration
zeitplan = schedule
erste, ersten = first
letzte, letzten = last latest
nächste = next
vorherige = previous
aktuell, aktuelle = current latest
früher = earlier previous
später = later
januar = january
februar = february
märz = march
juni = june
juli = july
oktober = october
dezember = december
montag, montags = monday mondays
dienstag, dienstags = tuesday tuesdays
mittwoch, mittwochs = wednesday wednesdays
donnerstag, donnerstags = thursday thursdays
freitag, freitags = friday fridays
samstag, samstags, sonnabend = saturday saturdays
sonntag, sonntags = sunday sundays
wochenende = weekend weekends
zwei = two
drei = three
vier = four
fünf = five
sechs = six
sieben = seven
acht = eight
neun = nine
zehn = ten
zwölf = twelve
# verbs of questions
verwendet, genutzt, benutzt, eingesetzt = used use
nutzung, verwendung = usage use
archivieren, archiviert = archive archived
gehandhabt, handhaben = handled handle handling
enthält, beinhaltet, umfasst = contains includes contain include
bekommen, bekommt, erhalten, erhält = get gets receive receives received
betrifft = affects concerns
verursacht = caused causes
funktioniert = works
läuft = runs running
zeigt = shows displays
sorgt, sorgen = makes make ensures ensure
verfolgt, verfolgen = traces trace tracks track
erlaubt = allowed permitted
darf, dürfen, darfst = may allowed permitted
kompiliert, kompilieren, gebaut, bauen = built build compiled compile
möglich = possible
bekannt = known
neu, neue = new
alt, alte = old
öffentlich = public
intern = internal
extern = external
entfernt, gelöscht = removed deleted
hinzugefügt = added
ersatz = replacement replacing
korrektur, korrekturen, fehlerbehebung = fix fixes correction
voraus, vorab, vorher = upfront front advance beforehand
schulden = debt
definiert, deklariert, festgelegt = defined declared set specified
angepasst, anpassen, anpassung, anpassungen = customized customize customization adapted
eingeleitet, initiiert, angestoßen = initiated started triggered
durchgeführt, ausgeführt = performed run executed done
gewählt, wählen = voted vote chosen elected selected
einschalten, einschaltet, aktivieren = enable enabled activate
umschalten, umschaltet = switch switching toggle
vollständig, fertiggestellt = complete completed finalized finished
verbesserung, verbesserungen, verbessert = improvement improvements improved
gemeinsam, gemeinsame = common shared together
schwierig, kompliziert = tricky difficult complicated hard
einzeln, einzelne, einzig = single individual
taste, tasten = key keys
leistung = performance
zweig, zweige = branch branches
gekürzt, kürzen, abgeschnitten = cut shortened
übernommen, übernehmen, übernimmt = adopted adopt taken
verifikation, verifizierung, verifiziert = verification verified verify
checkliste = checklist
ausrichtung = orientation alignment
durchgang, durchreichung = passthrough pass through
# English nouns German uses as its own (capitalized like any German noun: common words, not
# names, so a German question weighs them as the English one does)
ticket, tickets = ticket tickets
version, versionen = version versions
build, builds = build builds
status = status state
team, teams = team teams
server = server servers
update, updates = update updates
upgrade, upgrades = upgrade upgrades
patch, patches = patch patches
feature, features = feature features
branch, branches = branch branches
repository, repositories = repository repositories repo
commit, commits = commit commits
backup, backups = backup backups
account, accounts = account accounts
browser = browser
laptop, laptops = laptop laptops
software = software
hardware = hardware
firmware = firmware
link, links = link links
# the workplace: people, leave, pay, travel, offices and on-call
mitarbeiter, mitarbeitende, mitarbeiterin, angestellte, beschäftigte = employees employee staff
kollege, kollegen, kollegin = colleague colleagues
vorgesetzte, vorgesetzter, führungskraft = manager lead
urlaub = leave holiday vacation
urlaubstag, urlaubstage = leave days holiday
resturlaub = unused leave days remaining
übertragen, übertragbar, mitnehmen = carried over carry transfer
verfallen, verfällt = expire expires lapse
elternzeit = parental leave
krankheit, krankmeldung, krank = sick sickness illness
feiertag, feiertage = public holiday holidays
ostermontag = easter monday
karfreitag = good friday
pfingstmontag = whit monday
weihnachten, weihnachtsfeiertag = christmas
heiligabend = christmas eve
neujahr, neujahrstag = new year
silvester = new year eve
arbeitstag, arbeitstage, werktag, werktage = business working days
stunde, stunden = hour hours
überstunde, überstunden, mehrarbeit = overtime
freizeit, freizeitausgleich = leisure time off
gehalt, lohn = salary pay
vergütung, zulage, pauschale = compensation allowance pay
bereitschaft, rufbereitschaft = on-call rotation
erreichbar, erreichbarkeit = reachable available
reise, reisen, dienstreise = travel trip business
reisekosten, spesen, auslagen = expenses travel expense
erstattung, erstattet, rückerstattung = reimbursement reimbursed refund
einreichen, eingereicht, einreichung = submit submitted submission
abrechnung = claim expense report
genehmigung, genehmigt, freigabe = approval approved
hotel, hotels, übernachtung = hotel night
mahlzeit, mahlzeiten, verpflegung, essen = meal meals food
flug, flüge = flight flights
zug, bahn = train rail
büro, büros, standort = office offices location
hause, zuhause, daheim = home
öffnungszeiten = opening hours
geöffnet, offen = open opened
geschlossen = closed
adresse = address
ausweis, dienstausweis = badge pass
deutschland = germany german
großbritannien, england = united kingdom uk britain
neuzugang, neuzugänge = new joiners joiner starters
schulung, schulungen, training = training
einarbeitung, onboarding = onboarding
laptop, rechner = laptop computer
passwort, kennwort = password
zugang, zugriff = access
kanal = channel
mannschaft = team
leiter, leiterin, leitung = lead leads head
schreibtisch, schreibtische, arbeitsplatz = desk desks
empfang, rezeption = reception
anfrage, anfragen = request requests
kontingent, quote = quota
vertretung, stellvertreter, stellvertreterin = backup deputy substitute
implementierung, implementation = implementation implementations implemented
"""

_STEMMER = Stemmer.Stemmer("german")


def _stem(word: str) -> str:
    return _STEMMER.stemWord(word.lower())


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, ...]]:
    """German stem → English words, from `_ENTRIES`."""
    table: dict[str, tuple[str, ...]] = {}
    for line in _ENTRIES.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        german, english = line.split("=")
        words = tuple(english.split())
        for entry in german.split(","):
            table.setdefault(_stem(entry.strip()), words)
    return table


def glossary_words(word: str) -> list[str]:
    """The English words the glossary gives for a German word (any inflected form), or [];
    for a compound it lacks, the words of its two parts when it has both
    ("Anzeigeausgaben" → display ... output ..., allowing a linking s or n)."""
    found = _table().get(_stem(word))
    if found:
        return list(found)
    parts = _compound_parts(word)
    return list(dict.fromkeys([*parts[0], *parts[1]])) if parts else []


def head_words(word: str) -> list[str]:
    """The English words for what a German word names: the glossary's words for it, or for
    a compound it lacks, those of its head, the last part ("Mitarbeiterausweis" → badge,
    not employees): a compound means its head, narrowed by the part before it."""
    found = _table().get(_stem(word))
    if found:
        return list(found)
    parts = _compound_parts(word)
    return list(parts[1]) if parts else []


def _compound_parts(word: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The glossary's words for the two parts of a compound it has both of (the front, a
    linking s or n allowed, and the head), or None."""
    table = _table()
    lower = word.lower()
    for cut in range(SHORTEST_PART, len(lower) - SHORTEST_PART + 1):
        left, head = lower[:cut], lower[cut:]
        head_words = table.get(_stem(head))
        if not head_words:
            continue
        for linked in (left, left[:-1] if left.endswith(("s", "n")) else ""):
            left_words = table.get(_stem(linked)) if len(linked) >= SHORTEST_PART else None
            if left_words:
                return left_words, head_words
    return None


SHORTEST_PART = 4
