// SPDX-License-Identifier: AGPL-3.0-or-later
#include "kioskapp.h"

#include <QtQml/qqmlextensionplugin.h>

Q_IMPORT_QML_PLUGIN(Marquee_AppPlugin)
Q_IMPORT_QML_PLUGIN(Marquee_UiPlugin)

int main(int argc, char **argv)
{
    return marquee::app::runApp(argc, argv);
}
