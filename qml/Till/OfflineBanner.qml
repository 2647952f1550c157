// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import Marquee.App
import Marquee.Ui

/*! The till's offline mode on every screen: offline (leased seats only, cash only), offline sales still to report,
    or refused by the server for a manager to settle; invisible when there is nothing to say. */
MessageBanner {
    objectName: "offlineBanner"
    warning: Till.offline.bannerIsWarning
    text: Till.offline.bannerText
}
