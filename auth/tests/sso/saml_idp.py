"""A SAML identity provider for the tests: answers one AuthnRequest with a signed Response (signxml, lxml), or with
one of the hostile shapes an attacker would send instead.

    python saml_idp.py '<json spec>'  ->  prints the base64 SAMLResponse

The spec: `request_url` (where our service sent the browser: the AuthnRequest is read from it, as a real identity
provider reads it), `key`/`cert` (PEM files of the identity provider's signing key), `other_key`/`other_cert` (an
attacker's), `variant` (below), and optional `name_id`, `email`, `name`.
"""

import base64
import copy
import datetime
import json
import sys
import urllib.parse
import zlib

from lxml import etree
from signxml import XMLSigner

P = "urn:oasis:names:tc:SAML:2.0:protocol"
A = "urn:oasis:names:tc:SAML:2.0:assertion"
DS = "http://www.w3.org/2000/09/xmldsig#"
NS = {"samlp": P, "saml": A, "ds": DS}
IDP = "https://idp.test/saml/metadata"
EVIL = "mallory@evil.test"


def q(ns, tag):
    return "{%s}%s" % (ns, tag)


def instant(delta_seconds=0):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=delta_seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def read_request(url):
    """The AuthnRequest's ID, ACS URL and issuer (our entity id), from the HTTP-Redirect binding."""
    query = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
    xml = zlib.decompress(base64.b64decode(query["SAMLRequest"][0]), -15)
    request = etree.fromstring(xml)
    assert request.tag == q(P, "AuthnRequest"), request.tag
    return {
        "id": request.get("ID"),
        "acs": request.get("AssertionConsumerServiceURL"),
        "audience": request.find("saml:Issuer", NS).text,
        "relay_state": query.get("RelayState", [None])[0],
    }


def element(parent, ns, tag, text=None, **attrs):
    e = etree.SubElement(parent, q(ns, tag), nsmap=None)
    for k, v in attrs.items():
        e.set(k, v)
    if text is not None:
        e.text = text
    return e


def response(req, spec, issued=0, audience=None, recipient=None, destination=None, in_response_to=None):
    r = etree.Element(q(P, "Response"), nsmap={"samlp": P, "saml": A})
    r.set("ID", "_resp" + spec.get("suffix", ""))
    r.set("Version", "2.0")
    r.set("IssueInstant", instant(issued))
    r.set("Destination", destination or req["acs"])
    r.set("InResponseTo", in_response_to or req["id"])
    element(r, A, "Issuer", IDP)
    status = element(r, P, "Status")
    element(status, P, "StatusCode", Value="urn:oasis:names:tc:SAML:2.0:status:Success")
    a = element(r, A, "Assertion", ID="_assertion" + spec.get("suffix", ""), Version="2.0", IssueInstant=instant(issued))
    element(a, A, "Issuer", IDP)
    subject = element(a, A, "Subject")
    element(subject, A, "NameID", spec.get("name_id", "grace@idp.test"),
            Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress")
    confirmation = element(subject, A, "SubjectConfirmation", Method="urn:oasis:names:tc:SAML:2.0:cm:bearer")
    element(confirmation, A, "SubjectConfirmationData", NotOnOrAfter=instant(issued + 300),
            Recipient=recipient or req["acs"], InResponseTo=in_response_to or req["id"])
    conditions = element(a, A, "Conditions", NotBefore=instant(issued - 30), NotOnOrAfter=instant(issued + 300))
    restriction = element(conditions, A, "AudienceRestriction")
    element(restriction, A, "Audience", audience or req["audience"])
    authn = element(a, A, "AuthnStatement", AuthnInstant=instant(issued), SessionIndex="_session1")
    context = element(authn, A, "AuthnContext")
    element(context, A, "AuthnContextClassRef", "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport")
    statement = element(a, A, "AttributeStatement")
    for name, value in [("email", spec.get("email", "grace@idp.test")), ("displayName", spec.get("name", "Grace Hopper"))]:
        attribute = element(statement, A, "Attribute", Name=name)
        element(attribute, A, "AttributeValue", value)
    return r


def read(path):
    with open(path, "rb") as f:
        return f.read()


def sign(target, key, cert):
    """Signs `target` (an element with an ID) in place: an enveloped signature right after its Issuer."""
    placeholder = etree.Element(q(DS, "Signature"), nsmap={"ds": DS})
    placeholder.set("Id", "placeholder")
    target.find("saml:Issuer", NS).addnext(placeholder)
    parent = target.getparent()
    signer = XMLSigner(c14n_algorithm="http://www.w3.org/2001/10/xml-exc-c14n#")
    signed = signer.sign(target, key=read(key), cert=read(cert).decode(), reference_uri=target.get("ID"),
                         id_attribute="ID")
    if parent is not None:
        parent.replace(target, signed)
    return signed


def evil_copy(assertion):
    """The attacker's assertion: the signed one's content, another id and identity, no signature."""
    evil = copy.deepcopy(assertion)
    evil.set("ID", "_evil")
    for signature in evil.findall("ds:Signature", NS):
        evil.remove(signature)
    evil.find("saml:Subject/saml:NameID", NS).text = EVIL
    for value in evil.iterfind("saml:AttributeStatement/saml:Attribute/saml:AttributeValue", NS):
        if value.getparent().get("Name") == "email":
            value.text = EVIL
    return evil


def xsw(n, req, spec):
    key, cert = spec["key"], spec["cert"]
    r = response(req, spec)
    if n in (1, 2):
        # The Response is signed; the attacker wraps the signed original and puts an evil Response around it.
        r = sign(r, key, cert)
        original = copy.deepcopy(r)
        evil = r
        evil.set("ID", "_evil_response")
        assertion = evil.find("saml:Assertion", NS)
        evil.replace(assertion, evil_copy(assertion))
        signature = evil.find("ds:Signature", NS)
        original.remove(original.find("ds:Signature", NS))
        if n == 1:
            signature.append(original)  # inside the Signature
        else:
            signature.addprevious(original)  # a sibling before the Signature
        return evil
    assertion = sign(r.find("saml:Assertion", NS), key, cert)
    evil = evil_copy(assertion)
    if n == 3:
        assertion.addprevious(evil)
    elif n == 4:
        r.replace(assertion, evil)
        evil.append(assertion)
    elif n == 5:
        # The signature moves into the evil assertion; the original, unsigned, goes to the end.
        signature = assertion.find("ds:Signature", NS)
        assertion.remove(signature)
        evil.find("saml:Issuer", NS).addnext(signature)
        r.replace(assertion, evil)
        r.append(assertion)
    elif n == 6:
        signature = assertion.find("ds:Signature", NS)
        assertion.remove(signature)
        evil.find("saml:Issuer", NS).addnext(signature)
        r.replace(assertion, evil)
        signature.append(assertion)
    elif n == 7:
        extensions = etree.Element(q(P, "Extensions"))
        r.replace(assertion, evil)
        r.find("saml:Issuer", NS).addnext(extensions)
        extensions.append(assertion)
    elif n == 8:
        signature = assertion.find("ds:Signature", NS)
        assertion.remove(signature)
        evil.find("saml:Issuer", NS).addnext(signature)
        obj = etree.SubElement(signature, q(DS, "Object"))
        r.replace(assertion, evil)
        obj.append(assertion)
    return r


def answer(spec):
    req = read_request(spec["request_url"])
    if "in_response_to_of" in spec:
        req_other = read_request(spec["in_response_to_of"])
    variant = spec["variant"]
    key, cert = spec["key"], spec["cert"]
    kwargs = {}
    if variant == "wrong_audience":
        kwargs["audience"] = "https://another-sp.test"
    elif variant == "wrong_recipient":
        kwargs["recipient"] = "https://another-sp.test/acs"
    elif variant == "wrong_destination":
        kwargs["destination"] = "https://another-sp.test/acs"
    elif variant == "expired":
        kwargs["issued"] = -600
    elif variant == "other_request":
        kwargs["in_response_to"] = req_other["id"]

    if variant.startswith("xsw"):
        root = xsw(int(variant[3:]), req, spec)
    elif variant == "comment_nameid":
        # The attacker owns grace@idp.test.evil at the identity provider and splits the signed NameID with a comment.
        spec = dict(spec, name_id="grace@idp.test.evil", email="grace@idp.test.evil")
        root = response(req, spec)
        sign(root.find("saml:Assertion", NS), key, cert)
        text = etree.tostring(root).decode().replace(">grace@idp.test.evil<", ">grace@idp.test<!---->.evil<")
        return base64.b64encode(text.encode()).decode()
    else:
        root = response(req, spec, **kwargs)
        if variant == "unsigned":
            pass
        elif variant == "other_key":
            sign(root.find("saml:Assertion", NS), spec["other_key"], spec["other_cert"])
        elif variant in ("signed_response", "wrong_destination"):
            sign(root.find("saml:Assertion", NS), key, cert)
            root = sign(root, key, cert)
        else:
            sign(root.find("saml:Assertion", NS), key, cert)
    text = etree.tostring(root, xml_declaration=True, encoding="UTF-8").decode()
    if variant == "doctype":
        text = text.replace(
            "?>", '?>\n<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', 1
        )
    return base64.b64encode(text.encode()).decode()


if __name__ == "__main__":
    print(answer(json.loads(sys.argv[1])))
