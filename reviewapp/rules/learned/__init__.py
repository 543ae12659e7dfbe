"""The learned router and second-stage check as an organisation has them: the versions stored
and activated (audited), training from the shipped data plus the organisation's decisions, and
the decisions read as training labels. The models themselves are plain Python in
reviewapp/text/router and reviewapp/text/check.
"""
