"""Small texts written for these tests (not taken from any corpus), and helpers that write
them as a corpus file and a thesaurus."""

from __future__ import annotations

import json
from pathlib import Path

RU = [
    (
        "Весной в нашем городе открылся новый парк. Его строили почти три года, и жители успели "
        "устать от заборов и шума техники. Теперь на месте старого пустыря растут молодые клёны, "
        "работают фонтаны и детские площадки. Администрация обещает, что летом здесь будут "
        "проходить концерты и ярмарки. Многие горожане уже приходят сюда по вечерам с семьями.\n\n"
        "Архитекторы рассказали, что при проектировании учитывали мнение соседей. Поэтому в парке "
        "нет громких аттракционов, зато появились тихие аллеи и большая библиотека под открытым "
        "небом."
    ),
    (
        "Центральный банк сохранил ключевую ставку на прежнем уровне. Аналитики ожидали такого "
        "решения, потому что инфляция замедлилась медленнее, чем планировалось. Председатель банка "
        "заявила, что регулятор будет внимательно следить за ценами на продукты и топливо. "
        "Крупные компании надеются, что кредиты станут дешевле уже осенью.\n\n"
        "Экономисты отмечают, что рынок труда остаётся напряжённым. Зарплаты растут быстрее "
        "производительности, а предприятиям не хватает опытных инженеров и рабочих."
    ),
    (
        "Учёные местного университета изучили поведение перелётных птиц. Они закрепили лёгкие "
        "датчики на спинах журавлей и несколько месяцев отслеживали их маршруты. Оказалось, что "
        "птицы выбирают путь не только по солнцу, но и по очертаниям рек. Результаты "
        "исследования опубликовал известный научный журнал.\n\n"
        "Руководитель проекта считает, что эти данные помогут сохранить важные места отдыха птиц. "
        "Следующей весной исследователи планируют повторить наблюдения на большем числе журавлей."
    ),
    (
        "Городская футбольная команда выиграла решающий матч сезона. Гости долго владели мячом, "
        "но хозяева действовали быстрее и точнее. Единственный гол забил молодой нападающий на "
        "последних минутах встречи. Болельщики встретили победу громкими песнями и фейерверком.\n\n"
        "Тренер поблагодарил игроков за характер и сказал, что команда заслужила отдых. В новом "
        "сезоне клуб собирается усилить защиту и пригласить опытного вратаря."
    ),
    (
        "В областном музее открылась выставка старинных карт. Посетители могут увидеть, как "
        "менялись представления людей о далёких странах и морях. Самой ценной считается карта "
        "семнадцатого века, нарисованная вручную на тонком пергаменте. Экскурсоводы проводят "
        "занятия для школьников и студентов каждую субботу.\n\n"
        "Директор музея рассказала, что часть экспонатов передали частные коллекционеры. "
        "Выставка продлится до конца осени, а затем отправится в соседние города."
    ),
    (
        "Власти города решили продлить линию трамвая до нового жилого района. Работы начнутся "
        "летом и займут около двух лет. Жители давно просили построить удобный транспорт, "
        "потому что автобусы ходят редко и часто стоят в пробках. Новая линия соединит район с "
        "вокзалом и центральной площадью.\n\n"
        "Инженеры обещают, что вагоны будут тихими и просторными. На остановках установят "
        "электронные табло, а оплатить проезд можно будет банковской картой."
    ),
]

EN = [
    (
        "A new park opened in our town this spring. It took almost three years to build, and "
        "residents grew tired of fences and the noise of machines. Young maples now grow where an "
        "empty lot used to be, and there are fountains and playgrounds. The council promises "
        "concerts and fairs in the summer. Many families already come here in the evenings.\n\n"
        "The architects said they listened to the neighbours while planning. That is why the park "
        "has no loud rides but quiet alleys and a large open-air library."
    ),
    (
        "The central bank kept its key interest rate unchanged. Analysts expected the decision "
        "because inflation slowed down less than planned. The governor said the regulator would "
        "watch food and fuel prices closely. Large companies hope that loans will become cheaper "
        "in the autumn.\n\n"
        "Economists note that the labour market remains tight. Wages are rising faster than "
        "productivity, and factories are short of experienced engineers and workers."
    ),
    (
        "Scientists at the local university studied the behaviour of migrating birds. They fixed "
        "light sensors on the backs of cranes and tracked their routes for several months. It "
        "turned out that the birds choose their way not only by the sun but also by the shapes of "
        "rivers. A well known journal published the results.\n\n"
        "The project leader believes the data will help protect important resting places. Next "
        "spring the researchers plan to repeat the observations on more cranes."
    ),
    (
        "The town football team won the deciding match of the season. The visitors kept the ball "
        "for a long time, but the hosts played faster and more precisely. A young striker scored "
        "the only goal in the final minutes. Supporters celebrated the victory with loud songs "
        "and fireworks.\n\n"
        "The coach thanked the players for their character and said the team had earned a rest. "
        "Next season the club wants to strengthen its defence and sign an experienced goalkeeper."
    ),
    (
        "The regional museum opened an exhibition of old maps. Visitors can see how ideas about "
        "distant lands and seas changed over the centuries. The most valuable piece is a "
        "seventeenth century map drawn by hand on thin parchment. Guides hold classes for pupils "
        "and students every Saturday.\n\n"
        "The director said that private collectors lent some of the items. The exhibition runs "
        "until the end of autumn and will then travel to nearby towns."
    ),
    (
        "The city decided to extend the tram line to a new housing district. Work will start in "
        "the summer and take about two years. Residents have long asked for convenient transport "
        "because buses run rarely and often get stuck in traffic. The new line will connect the "
        "district with the railway station and the main square.\n\n"
        "Engineers promise that the cars will be quiet and spacious. Stops will have electronic "
        "boards, and passengers will be able to pay with a bank card."
    ),
]

#: A small thesaurus for the Russian texts: one group a row, the first word the headword.
THESAURUS_CSV = """большой,крупный,огромный
новый,свежий
город,град
житель,обитатель
ожидать,ждать
заявить,сообщить,объявить
учёный,исследователь
птица,пернатый
команда,дружина
выставка,экспозиция
музей,собрание
решить,постановить
работа,труд
быстрый,скорый
старый,давний
"""

THESAURUS_DAT = """UTF-8
большой|2
(синоним)|крупный|огромный
(антоним)|маленький
город|1
(синоним)|град|населённый пункт
ожидать|1
(синоним)|ждать
"""


def write_corpus(path: Path, texts: list[str], prefix: str = "d") -> Path:
    """A corpus JSONL (id, text, source, topics) of ``texts``."""
    with open(path, "w", encoding="utf-8") as fh:
        for i, text in enumerate(texts):
            record = {
                "id": f"{prefix}{i}",
                "text": text,
                "source": "s" + str(i % 2),
                "topics": ["t" + str(i % 3)],
            }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path
