"""Vocabularies of the scenario generator: domains, their entities and attributes, names per distance level.

Every domain has the same *shape* (so the generator needs one code path) but its
own names, comments, code list and values, so that scenarios differ in more than
names: a main entity (identifier, a language-tagged text with a language column, a
date, an integer, a decimal, a coded value), a parent entity referenced by a foreign
key (identifier, name, a nested place, an integer), and a member entity linked to the
main one through a link table (identifier, two texts, one nested).

An attribute is written at four schema distances (:data:`LEVELS`):

* ``label``: the column is the property's label in snake case (``edition_title``);
* ``synonym``: a synonym or abbreviation (``book_ttl``);
* ``language``: the same notion in another natural language (``titulo``);
* ``opaque``: a code (``F07``) that says nothing; the ontology's labels and comments,
  and the data values, are all a mapper has to go on.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LEVELS", "Attr", "Entity", "Domain", "DOMAINS", "FIRST_NAMES", "LAST_NAMES", "CITIES", "WORDS"]

#: Schema-distance levels, closest first.
LEVELS = ("label", "synonym", "language", "opaque")


@dataclass(frozen=True)
class Attr:
    """One attribute: ontology property ``local`` with ``label``/``comment``; column names per level.

    ``kind`` (fixes the datatype and the value generator): ``id`` ``text`` ``langtext`` ``date``
    ``int`` ``decimal`` ``year`` ``name`` ``surname`` ``city`` ``email`` ``term`` ``note``. A
    non-empty ``group`` puts the attribute in a sub-record (JSON object, XML element) of that name.
    """

    local: str
    label: str
    comment: str
    kind: str
    synonym: str
    foreign: str
    group: str = ""


@dataclass(frozen=True)
class Entity:
    """A class ``local`` with ``label``/``comment``; file names per level (synonym, other language)."""

    local: str
    label: str
    comment: str
    synonym: str
    foreign: str
    attrs: tuple[Attr, ...]


@dataclass(frozen=True)
class Domain:
    """One vocabulary: namespace prefix, main/parent/member entities, object properties and a code list.

    ``fk``, ``link``, ``coded``: (local, label, comment) of the object properties main->parent,
    main->member and main->concept. ``codes``: (notation, English label) of the SKOS scheme ``scheme``.
    """

    name: str
    prefix: str
    main: Entity
    parent: Entity
    member: Entity
    fk: tuple[str, str, str]
    link: tuple[str, str, str]
    coded: tuple[str, str, str]
    scheme: tuple[str, str]
    codes: tuple[tuple[str, str], ...]


def _A(local: str, label: str, comment: str, kind: str, synonym: str, foreign: str, group: str = "") -> Attr:
    return Attr(local, label, comment, kind, synonym, foreign, group)


DOMAINS: tuple[Domain, ...] = (
    Domain(
        "library", "lib",
        Entity("Edition", "edition", "A published edition of a written work, identified by its ISBN.", "book", "libro", (
            _A("isbn", "ISBN", "International Standard Book Number of the edition.", "id", "isbn_no", "isbn"),
            _A("editionTitle", "edition title", "Title of the edition, in the language it is written in.",
               "langtext", "book_ttl", "titulo"),
            _A("publicationDate", "publication date", "Day on which the edition was published.", "date",
               "pub_dt", "fecha_publicacion"),
            _A("pageCount", "page count", "Number of pages of the edition.", "int", "num_pgs", "paginas"),
            _A("listPrice", "list price", "Recommended retail price in euros.", "decimal", "rrp", "precio"))),
        Entity("Publisher", "publisher", "An organisation that issues editions.", "press", "editorial", (
            _A("publisherCode", "publisher code", "Identifier of the publisher.", "id", "press_ref", "codigo_editorial"),
            _A("publisherName", "publisher name", "Legal name of the publisher.", "text", "press_nm", "nombre"),
            _A("seatCity", "seat city", "City where the publisher has its seat.", "city", "hq_town", "ciudad", "address"),
            _A("foundingYear", "founding year", "Year in which the publisher was founded.", "year", "est", "fundacion"))),
        Entity("Author", "author", "A person who wrote a work.", "writer", "autor", (
            _A("authorId", "author identifier", "Identifier of the author.", "id", "writer_ref", "id_autor"),
            _A("givenName", "given name", "First name of the author.", "name", "fname", "nombre_pila"),
            _A("familyName", "family name", "Last name of the author.", "surname", "lname", "apellido"),
            _A("contactEmail", "contact email", "E-mail address to reach the author.", "email", "mail", "correo",
               "contact"))),
        ("issuedBy", "issued by", "The publisher that issued the edition."),
        ("writtenBy", "written by", "An author of the edition."),
        ("hasGenre", "has genre", "Literary genre of the edition, from the genre code list."),
        ("genres", "genres"),
        (("FIC", "fiction"), ("BIO", "biography"), ("SCI", "science"), ("HIS", "history"), ("POE", "poetry"))),
    Domain(
        "pharmacy", "med",
        Entity("Medicine", "medicine", "A medicinal product authorised for sale.", "drug", "medicamento", (
            _A("authorisationNumber", "authorisation number", "Number of the marketing authorisation.", "id",
               "auth_no", "num_registro"),
            _A("tradeName", "trade name", "Name under which the medicine is sold, in the language of its leaflet.",
               "langtext", "brand", "nombre_comercial"),
            _A("authorisationDate", "authorisation date", "Day on which the medicine was authorised.", "date",
               "auth_dt", "fecha_autorizacion"),
            _A("packSize", "pack size", "Number of units in one pack.", "int", "qty", "unidades"),
            _A("packPrice", "pack price", "Price of one pack in euros.", "decimal", "pvp", "precio_envase"))),
        Entity("Manufacturer", "manufacturer", "A company that produces medicines.", "maker", "fabricante", (
            _A("manufacturerCode", "manufacturer code", "Identifier of the manufacturer.", "id", "mkr_ref", "codigo"),
            _A("companyName", "company name", "Registered name of the company.", "text", "co_nm", "razon_social"),
            _A("plantCity", "plant city", "City where the production plant is located.", "city", "site_town",
               "localidad", "site"),
            _A("registrationYear", "registration year", "Year the company was registered.", "year", "reg_yr",
               "anio_registro"))),
        Entity("Ingredient", "ingredient", "An active substance of a medicine.", "substance", "principio_activo", (
            _A("ingredientCode", "ingredient code", "Identifier of the active substance.", "id", "subst_ref", "cod_principio"),
            _A("substanceName", "substance name", "International non-proprietary name.", "term", "inn", "denominacion"),
            _A("chemicalClass", "chemical class", "Chemical family of the substance.", "term", "chem_cls", "familia"),
            _A("safetyNote", "safety note", "Warning text for the substance.", "note", "warn", "advertencia",
               "safety"))),
        ("manufacturedBy", "manufactured by", "The company that produces the medicine."),
        ("containsIngredient", "contains ingredient", "An active substance the medicine contains."),
        ("hasDosageForm", "has dosage form", "Pharmaceutical form of the medicine, from the dosage-form code list."),
        ("dosageForms", "dosage forms"),
        (("TAB", "tablet"), ("CAP", "capsule"), ("SYR", "syrup"), ("INJ", "injection"))),
    Domain(
        "transit", "tr",
        Entity("Trip", "trip", "A scheduled journey of a vehicle.", "journey", "viaje", (
            _A("tripNumber", "trip number", "Number of the trip in the timetable.", "id", "trip_no", "num_viaje"),
            _A("headsign", "headsign", "Text shown on the vehicle, in the language of the sign.", "langtext",
               "dest_sign", "rotulo"),
            _A("serviceDate", "service date", "Day on which the trip runs.", "date", "svc_dt", "fecha_servicio"),
            _A("seatCapacity", "seat capacity", "Number of seats offered on the trip.", "int", "seats", "plazas"),
            _A("fare", "fare", "Price of a single ticket in euros.", "decimal", "ticket_eur", "tarifa"))),
        Entity("Operator", "operator", "A company that runs transport services.", "carrier", "operador", (
            _A("operatorCode", "operator code", "Identifier of the operator.", "id", "carrier_ref", "cod_operador"),
            _A("operatorName", "operator name", "Public name of the operator.", "text", "carrier_nm", "nombre_operador"),
            _A("depotCity", "depot city", "City of the operator's main depot.", "city", "base_town", "cochera",
               "depot"),
            _A("licenceYear", "licence year", "Year the operating licence was granted.", "year", "lic_yr",
               "anio_licencia"))),
        Entity("Stop", "stop", "A place where vehicles pick up or drop off passengers.", "halt", "parada", (
            _A("stopCode", "stop code", "Identifier of the stop.", "id", "halt_ref", "cod_parada"),
            _A("stopName", "stop name", "Name of the stop.", "term", "halt_nm", "nombre_parada"),
            _A("street", "street", "Street the stop is on.", "term", "st", "calle"),
            _A("accessNote", "access note", "Accessibility information for the stop.", "note", "acc",
               "accesibilidad", "access"))),
        ("operatedBy", "operated by", "The operator running the trip."),
        ("callsAt", "calls at", "A stop at which the trip calls."),
        ("hasMode", "has mode", "Transport mode of the trip, from the mode code list."),
        ("modes", "transport modes"),
        (("BUS", "bus"), ("TRM", "tram"), ("FER", "ferry"), ("RAI", "rail"))),
    Domain(
        "museum", "art",
        Entity("Artwork", "artwork", "A work of art held in a collection.", "piece", "obra", (
            _A("inventoryNumber", "inventory number", "Inventory number of the artwork.", "id", "inv_no", "num_inventario"),
            _A("artworkTitle", "artwork title", "Title of the artwork, in the language it was catalogued in.",
               "langtext", "piece_ttl", "titulo_obra"),
            _A("acquisitionDate", "acquisition date", "Day on which the artwork was acquired.", "date", "acq_dt",
               "fecha_adquisicion"),
            _A("heightCm", "height in centimetres", "Height of the artwork in centimetres.", "int", "h_cm", "alto"),
            _A("insuranceValue", "insurance value", "Insured value in thousands of euros.", "decimal", "ins_val",
               "valor_seguro"))),
        Entity("Collection", "collection", "A museum collection that holds artworks.", "holding", "coleccion", (
            _A("collectionCode", "collection code", "Identifier of the collection.", "id", "hold_ref", "cod_coleccion"),
            _A("collectionName", "collection name", "Name of the collection.", "text", "hold_nm", "nombre_coleccion"),
            _A("museumCity", "museum city", "City of the museum keeping the collection.", "city", "town", "ciudad_museo",
               "location"),
            _A("openingYear", "opening year", "Year the collection opened to the public.", "year", "opened",
               "apertura"))),
        Entity("Artist", "artist", "A person who created artworks.", "creator", "artista", (
            _A("artistId", "artist identifier", "Identifier of the artist.", "id", "creator_ref", "id_artista"),
            _A("firstName", "first name", "First name of the artist.", "name", "fn", "nombre_artista"),
            _A("lastName", "last name", "Last name of the artist.", "surname", "ln", "apellido_artista"),
            _A("studioEmail", "studio email", "E-mail address of the artist's studio.", "email", "studio_mail",
               "correo_taller", "studio"))),
        ("heldIn", "held in", "The collection that holds the artwork."),
        ("createdBy", "created by", "An artist who created the artwork."),
        ("hasTechnique", "has technique", "Technique of the artwork, from the technique code list."),
        ("techniques", "techniques"),
        (("OIL", "oil painting"), ("WAT", "watercolour"), ("SCU", "sculpture"), ("PHO", "photograph"))),
)

FIRST_NAMES = ("Ana", "Ben", "Carla", "David", "Elena", "Farid", "Greta", "Hugo", "Irene", "Jonas", "Kira", "Luis")
LAST_NAMES = ("Alvarez", "Brandt", "Costa", "Dubois", "Evans", "Fischer", "Garcia", "Horvat", "Ito", "Jensen")
CITIES = ("Lyon", "Porto", "Graz", "Leeds", "Malaga", "Turin", "Ghent", "Brno", "Cork", "Bergen")
#: words of the language-tagged texts, per language: (article, "of the", nouns)
WORDS = {
    "en": ("The", "of the", ("river", "garden", "night", "city", "letter", "winter", "journey", "silence")),
    "es": ("El", "del", ("río", "jardín", "viento", "mar", "camino", "invierno", "viaje", "silencio")),
    "fr": ("Le", "du", ("fleuve", "jardin", "vent", "port", "chemin", "hiver", "voyage", "silence")),
    "de": ("Der", "des", ("Fluss", "Garten", "Wind", "Hafen", "Weg", "Winter", "Abend", "Wald")),
}
