// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import Marquee.App
import Marquee.Ui

/*! On top of every screen of the kiosk, the till and the desk while the app may speak plain http to another
    machine (started with --allow-insecure-http); invisible otherwise. */
MessageBanner {
    objectName: "insecureBanner"
    z: 1000
    warning: true
    text: Transport.insecure ? Transport.warning : ""
}
