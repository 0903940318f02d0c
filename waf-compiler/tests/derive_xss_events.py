"""Regenerates EVENT_HANDLERS of `src/detect/xss.rs` by asking C libinjection (libinjection-python).

Usage: python derive_xss_events.py SHARED_LIBINJECTION_DIR

Candidates: DOM, SVG and legacy IE event names (EVENTS below, from the browsers' documentation)
and every `on*` word of the sample payloads. A name is an event for libinjection when
`<a onNAME=1>` is XSS; since libinjection matches event names as prefixes, only the names with
no listed prefix are printed.
"""
import glob
import os
import re
import sys
import urllib.parse

import libinjection

from libinjection_oracle import RawBytes

EVENTS = """
abort activate afterprint afterscriptexecute afterupdate animationcancel animationend
animationiteration animationstart ariarequest audioend audioprocess audiostart autocomplete
autocompleteerror auxclick beforeactivate beforecopy beforecut beforedeactivate beforeeditfocus
beforeinput beforematch beforepaste beforeprint beforescriptexecute beforetoggle beforeunload
beforeupdate begin beginevent blocked blur bounce boundary cached cancel canplay canplaythrough
cellchange change chargingchange chargingtimechange checking click close command
compassneedscalibration complete compositionend compositionstart compositionupdate connect
connecting connectionstatechange contextlost contextmenu contextrestored controlselect
controllerchange copy cuechange cut dataavailable datachannel datasetchanged datasetcomplete
dblclick deactivate devicechange devicelight devicemotion deviceorientation
deviceorientationabsolute deviceproximity dischargingtimechange disconnect display downloading
drag dragdrop dragend dragenter dragexit dragleave dragover dragstart drop durationchange emptied
encrypted end ended endevent enter enterpictureinpicture error errorupdate exit filterchange
finish focus focusin focusout formchange formdata forminput fullscreenchange fullscreenerror
gamepadconnected gamepaddisconnected gotpointercapture hashchange help icecandidate
iceconnectionstatechange icegatheringstatechange inactive input invalid keydown keypress keyup
languagechange layoutcomplete leavepictureinpicture levelchange load loadeddata loadedmetadata
loadend loadstart losecapture lostpointercapture mark message messageerror mousedown mouseenter
mouseleave mousemove mouseout mouseover mouseup mousewheel move moveend movestart
mozfullscreenchange mozfullscreenerror mozpointerlockchange mozpointerlockerror mute
negotiationneeded nomatch noupdate obsolete offline online open orientationchange overflow
overflowchanged pagehide pageshow paste pause play playing pointercancel pointerdown pointerenter
pointerleave pointerlockchange pointerlockerror pointermove pointerout pointerover
pointerrawupdate pointerup popstate progress propertychange ratechange readystatechange reading
rejectionhandled removestream removetrack repeat repeatevent reset resize result resume rowenter
rowexit rowsdelete rowsinserted scroll scrollend search securitypolicyviolation seeked seeking
select selectionchange selectstart show signalingstatechange slotchange soundend soundstart
speechend speechstart stalled start statechange stop storage submit success suspend svgabort
svgerror svgload svgresize svgscroll svgunload svgzoom timeout timeupdate toggle tonechange
touchcancel touchend touchenter touchleave touchmove touchstart track transitioncancel
transitionend transitionrun transitionstart unhandledrejection unload unmute update updateend
updateready updatestart upgradeneeded userproximity versionchange visibilitychange voiceschanged
volumechange vrdisplayactivate vrdisplayconnect vrdisplaydeactivate vrdisplaydisconnect
vrdisplaypresentchange waiting waitingforkey webglcontextcreationerror webglcontextlost
webglcontextrestored webkitanimationend webkitanimationiteration webkitanimationstart
webkitfullscreenchange webkitfullscreenerror webkittransitionend wheel zoom
""".upper().split()


def main():
    candidates = set(EVENTS)
    for path in glob.glob(os.path.join(sys.argv[1], "data", "*.txt")):
        for line in open(path, "rb"):
            data = urllib.parse.unquote_to_bytes(line.strip().replace(b"+", b" "))
            for name in re.findall(rb"(?i)\bon([a-z0-9_-]+)", data):
                candidates.add(name.decode("latin-1").upper())
    events = [e for e in sorted(candidates)
              if libinjection.is_xss(RawBytes(b"<a on" + e.encode("latin-1") + b"=1>"))["is_xss"]]
    shortest = [e for e in events if not any(o != e and e.startswith(o) for o in events)]
    print(" ".join(shortest))


if __name__ == "__main__":
    main()
